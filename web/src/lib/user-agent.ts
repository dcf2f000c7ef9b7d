/** A browser and system as a person recognizes them ("Firefox", "Windows"), read from a user agent. */
type Names = readonly (readonly [RegExp, string])[];

/** In this order: Edge's and Chrome's user agents also say "Safari". */
const BROWSERS: Names = [
  [/Edg\//, 'Edge'],
  [/Firefox\//, 'Firefox'],
  [/Chrome\/|Chromium\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];

/** In this order: Android's user agent also says "Linux", an iPad's "Mac OS X". */
export const SYSTEMS: Names = [
  [/Windows/, 'Windows'],
  [/Android/, 'Android'],
  [/iPhone|iPad/, 'iOS'],
  [/Mac OS X/, 'macOS'],
  [/Linux/, 'Linux'],
];

/** The systems of a shared computer (the phone sign-in's scan page). */
export const DESKTOP_SYSTEMS: Names = SYSTEMS.filter(([, name]) => name !== 'Android' && name !== 'iOS');

function first(userAgent: string, names: Names): string {
  return names.find(([pattern]) => pattern.test(userAgent))?.[1] ?? '';
}

export function browserOf(userAgent: string): string {
  return first(userAgent, BROWSERS);
}

export function systemOf(userAgent: string, systems: Names = SYSTEMS): string {
  return first(userAgent, systems);
}
