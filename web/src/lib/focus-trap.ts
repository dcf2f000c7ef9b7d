/**
 * A modal view's keyboard contract (WAI-ARIA Authoring Practices, "Dialog (Modal)"; WCAG 2.1.2 and 2.4.3):
 * while it is open, Tab and Shift+Tab cycle through its own controls and focus cannot wander to the page
 * behind it; Escape calls `onEscape`; when it closes, focus returns to where it was before it opened.
 */
import { onBeforeUnmount, type Ref, watch } from 'vue';

const TABBABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), ' +
  'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The controls inside `container` that Tab reaches, in order (hidden ones left out). */
export function tabbables(container: HTMLElement): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(TABBABLE)].filter(
    (element) => !element.hidden && element.getClientRects().length > 0,
  );
}

export interface FocusTrapOptions {
  /** Escape was pressed inside the view. */
  onEscape?: () => void;
  /** Where focus that strayed behind the view goes back to (default: the view's first control). */
  home?: () => HTMLElement | null;
}

export function useFocusTrap(
  container: Ref<HTMLElement | null>,
  active: () => boolean,
  options: FocusTrapOptions = {},
): void {
  let before: HTMLElement | null = null;

  function onKeydown(event: KeyboardEvent): void {
    const root = container.value;
    if (!root) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      options.onEscape?.();
      return;
    }
    if (event.key !== 'Tab') return;
    const controls = tabbables(root);
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (!first || !last) {
      event.preventDefault();
      return;
    }
    const current = document.activeElement;
    const inside = current instanceof HTMLElement && root.contains(current);
    const index = current instanceof HTMLElement ? controls.indexOf(current) : -1;
    // From the first control, or from the view's heading (focusable by script only), Shift+Tab wraps to the end.
    if (event.shiftKey && (!inside || index <= 0)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (!inside || current === last)) {
      event.preventDefault();
      first.focus();
    }
  }

  /** Focus that lands behind the view (a click, a script) is brought back into it. */
  function onFocusIn(event: FocusEvent): void {
    const root = container.value;
    if (root && event.target instanceof Node && !root.contains(event.target)) {
      (options.home?.() ?? tabbables(root)[0] ?? root).focus();
    }
  }

  function start(): void {
    before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    document.addEventListener('keydown', onKeydown, true);
    document.addEventListener('focusin', onFocusIn, true);
  }

  function stop(): void {
    document.removeEventListener('keydown', onKeydown, true);
    document.removeEventListener('focusin', onFocusIn, true);
  }

  watch(
    active,
    (now, was) => {
      if (now) start();
      else if (was) {
        stop();
        if (before?.isConnected) before.focus();
        before = null;
      }
    },
    { immediate: true },
  );
  onBeforeUnmount(stop);
}
