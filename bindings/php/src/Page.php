<?php

declare(strict_types=1);

namespace Kuatia;

/**
 * One page of a list from the typed calls of {@see Service}: the resources in `data` and the list's `meta`
 * (`has_more`, `next_cursor` for `starting_after`, `total`, `page`, `per_page`).
 */
final class Page
{
    /**
     * @param list<array<string, mixed>> $data
     * @param array<string, mixed> $meta
     */
    public function __construct(
        public readonly array $data,
        public readonly array $meta,
    ) {
    }

    /** Whether rows follow this page. */
    public function hasMore(): bool
    {
        return (bool) ($this->meta['has_more'] ?? false);
    }

    /** The `starting_after` of the next page (null on the last one). */
    public function nextCursor(): ?string
    {
        return $this->meta['next_cursor'] ?? null;
    }
}
