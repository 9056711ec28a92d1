// Cursor paging for list pages: First page (when not on it) and Next page, which puts the answer's
// next_cursor into the URL as `after` (docs/dashboard.md "Pages").
import { setQuery } from "../router.ts";

interface Paged {
  has_more?: boolean;
  next_cursor?: string | null;
}

export function Pager({ firstHref, page }: { firstHref: string | null; page: Paged | null }) {
  return (
    <>
      {firstHref && <a class="btn" href={firstHref}>First page</a>}
      <button
        type="button"
        class="btn"
        disabled={!page?.has_more || !page.next_cursor}
        onClick={() => setQuery({ after: page?.next_cursor ?? null })}
      >Next page</button>
    </>
  );
}
