/** How the pages name audit actions and outcomes (docs/interface.md#people-groups-and-audit). */
type Translate = (key: string) => string;
type HasKey = (key: string) => boolean;

/** The action's name in the page's language; an action added later without a translation shows as is. */
export function actionLabel(t: Translate, te: HasKey, action: string): string {
  const key = `people.actions.${action}`;
  return te(key) ? t(key) : action;
}

export function outcomeLabel(t: Translate, te: HasKey, outcome: string): string {
  const key = `people.outcomes.${outcome}`;
  return te(key) ? t(key) : outcome;
}

export function outcomeType(outcome: string): 'success' | 'error' | 'warning' | 'default' {
  return outcome === 'success'
    ? 'success'
    : outcome === 'failure'
      ? 'error'
      : outcome === 'locked'
        ? 'warning'
        : 'default';
}

/** A user agent cut to its browser and system, enough to recognise a device. */
export function shortDevice(userAgent: string): string {
  const system = /\(([^)]*)\)/.exec(userAgent)?.[1]?.split(';')[0]?.trim();
  const browser = /(Edg|Firefox|Chrome|Safari|MicroMessenger|QQBrowser)\/[\d.]+/.exec(userAgent)?.[0];
  const parts = [browser, system].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(', ') : userAgent.slice(0, 60);
}
