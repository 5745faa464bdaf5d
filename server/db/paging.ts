/**
 * A page of a list and how many items the whole list has (X-Total-Count). From the start, the page is read one row
 * longer: without that row it is the whole list and its length the total (most lists are shorter than a page), so the
 * count's statement runs only for a longer list, after the page. A later page is read beside its count. `limit`
 * undefined reads every row.
 */
export async function pageAndTotal<T>(
  page: { limit?: number; offset?: number },
  read: (limit: number | undefined) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<{ rows: T[]; total: number }> {
  const { limit, offset } = page;
  if (!offset) {
    const rows = await read(limit === undefined ? undefined : limit + 1);
    if (limit === undefined || rows.length <= limit) return { rows, total: rows.length };
    return { rows: rows.slice(0, limit), total: await count() };
  }
  const [rows, total] = await Promise.all([read(limit), count()]);
  return { rows, total };
}
