/**
 * Admin tables on a phone: below 640 px a row becomes a card of "label: value" lines (style.css,
 * `.table--stacked`) instead of a 1,100-px-wide table that scrolls sideways and hides its action buttons.
 * The DOM stays the same table, so its rows, cells and buttons keep their roles and names.
 */
import type { DataTableColumn, DataTableColumns } from 'naive-ui';
import { onBeforeUnmount, ref, type HTMLAttributes, type Ref } from 'vue';

const NARROW = '(max-width: 640px)';

/** True while the viewport is phone-narrow; follows rotation and resizing. */
export function useNarrowScreen(): Ref<boolean> {
  const query = window.matchMedia(NARROW);
  const narrow = ref(query.matches);
  const update = (event: MediaQueryListEvent): void => {
    narrow.value = event.matches;
  };
  query.addEventListener('change', update);
  onBeforeUnmount(() => query.removeEventListener('change', update));
  return narrow;
}

/** Gives every cell its column's title as `data-label`, which a stacked row shows before the value. */
export function labelledColumns<T>(columns: DataTableColumns<T>): DataTableColumns<T> {
  return columns.map((column): DataTableColumn<T> => {
    if (column.type !== undefined || 'children' in column || typeof column.title !== 'string') return column;
    // Vue's HTMLAttributes has no index for data-* attributes, which the DOM accepts.
    const attributes = { 'data-label': column.title } as HTMLAttributes;
    return { ...column, cellProps: () => attributes };
  });
}

/**
 * A table that scrolls sideways must scroll from the keyboard too (WCAG 2.1.1), also when its rows hold
 * nothing focusable (an auditor's read-only list): its scrolling box becomes a focusable, named region.
 */
export function focusableScrollRegion(wrapper: HTMLElement | null, name: string): void {
  for (const box of wrapper?.querySelectorAll<HTMLElement>(
    '.n-data-table-base-table-body .n-scrollbar-container',
  ) ?? []) {
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', name);
  }
}
