/**
 * Copies a value shown in an input: the clipboard API, or where it is missing (plain http) or denied, the
 * input's text selected and the browser asked to copy it. Answers whether the value was copied.
 */
export async function copyFromInput(value: string, inputId: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    const input = document.getElementById(inputId) as HTMLInputElement | null;
    input?.select();
    return document.execCommand?.('copy') ?? false;
  }
}
