import type { GlobalThemeOverrides } from 'naive-ui';
import { computed } from 'vue';
import { brandColor, shade } from './branding';

/**
 * A calm blue by default (or the school's BRAND_COLOR, which the server accepts only at ≥ 4.5:1 on white),
 * dark enough for white text and for text on white to pass WCAG AA, and secondary text darkened for the
 * same reason. Input, select and checkbox borders and the focus ring are drawn at ≥ 3:1 against white
 * (WCAG 1.4.11): naive-ui's defaults are 1.3:1.
 */
const CONTROL_BORDER = '#767c84';

export const themeOverrides = computed<GlobalThemeOverrides>(() => {
  const primary = brandColor.value;
  const hover = shade(primary, 0.12);
  const pressed = shade(primary, -0.2);
  const focusRing = `0 0 0 2px ${primary}`;
  /** Text inputs and selects: a visible border at rest, the brand colour on hover and focus. */
  const controlBorders = {
    border: `1px solid ${CONTROL_BORDER}`,
    borderHover: `1px solid ${primary}`,
    borderFocus: `1px solid ${primary}`,
    boxShadowFocus: focusRing,
  };
  return {
    common: {
      fontFamily:
        'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", sans-serif',
      fontFamilyMono: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace',
      fontSize: '15px',
      fontSizeMedium: '15px',
      primaryColor: primary,
      primaryColorHover: hover,
      primaryColorPressed: pressed,
      primaryColorSuppl: hover,
      infoColor: primary,
      infoColorHover: hover,
      infoColorPressed: pressed,
      infoColorSuppl: hover,
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
    // Toasts: dark text on white at every moment they are shown (WCAG 1.4.3, 4.5:1).
    Message: {
      textColor: '#1f2328',
      textColorSuccess: '#1f2328',
      textColorError: '#1f2328',
      textColorWarning: '#1f2328',
      textColorInfo: '#1f2328',
      textColorLoading: '#1f2328',
    },
    Input: {
      ...controlBorders,
      borderError: '1px solid #b3261e',
      borderHoverError: '1px solid #b3261e',
      borderFocusError: '1px solid #b3261e',
      boxShadowFocusError: '0 0 0 2px #b3261e',
    },
    InternalSelection: {
      ...controlBorders,
      borderActive: `1px solid ${primary}`,
      boxShadowActive: focusRing,
    },
    Checkbox: { border: `1px solid ${CONTROL_BORDER}`, boxShadowFocus: focusRing },
    Switch: { boxShadowFocus: focusRing },
    Button: { border: `1px solid ${CONTROL_BORDER}` },
    Empty: { textColor: '#575c62' },
    Form: { feedbackTextColor: '#454a50' },
  };
});
