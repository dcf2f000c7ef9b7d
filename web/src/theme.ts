import type { GlobalThemeOverrides } from 'naive-ui';

/**
 * A calm blue, dark enough for white text and for text on white to pass WCAG AA (≥ 4.5:1),
 * and secondary text darkened for the same reason.
 */
export const themeOverrides: GlobalThemeOverrides = {
  common: {
    fontFamily:
      'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", sans-serif',
    fontFamilyMono: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace',
    fontSize: '15px',
    fontSizeMedium: '15px',
    primaryColor: '#1f5f8b',
    primaryColorHover: '#2a6f9f',
    primaryColorPressed: '#174a6d',
    primaryColorSuppl: '#2a6f9f',
    infoColor: '#1f5f8b',
    infoColorHover: '#2a6f9f',
    infoColorPressed: '#174a6d',
    infoColorSuppl: '#2a6f9f',
    successColor: '#1b6e45',
    successColorHover: '#22804f',
    successColorPressed: '#155a38',
    successColorSuppl: '#22804f',
    warningColor: '#8a5a00',
    warningColorHover: '#9c6700',
    warningColorPressed: '#744b00',
    warningColorSuppl: '#9c6700',
    errorColor: '#b3261e',
    errorColorHover: '#c4342b',
    errorColorPressed: '#931f18',
    errorColorSuppl: '#c4342b',
    textColor3: '#5b6169',
    placeholderColor: '#767b82',
    borderRadius: '8px',
  },
};
