/**
 * The app-name rule (docs/interface.md#resources), one for every way an app gets a name: the admin API, the
 * command line, the page, the Campux import. 1 to 64 characters after trimming, counted in code points (as
 * JSON Schema counts them), so an emoji or a CJK character is one.
 */
export const MAX_APP_NAME_LENGTH = 64;

/** The name as it is stored: trimmed. */
export const normalizedAppName = (name: string): string => name.trim();

/** Why `name` cannot name an app, or undefined. */
export function appNameProblem(name: string): string | undefined {
  const length = [...normalizedAppName(name)].length;
  if (length === 0) return 'name must not be empty';
  if (length > MAX_APP_NAME_LENGTH) return `name must be at most ${MAX_APP_NAME_LENGTH} characters`;
  return undefined;
}

/** A name cut to the rule's length, never inside a character (for names read from elsewhere). */
export function truncatedAppName(name: string): string {
  return [...normalizedAppName(name)].slice(0, MAX_APP_NAME_LENGTH).join('');
}
