package dev.kuatia;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One page of a list from the typed calls of {@link Service}: the resources ({@code data}, a JSON array) and the
 * list's {@code meta} ({@code has_more}, {@code next_cursor} for {@code starting_after}, {@code total},
 * {@code page}, {@code per_page}).
 */
public record Page(JsonNode data, JsonNode meta) {
    /** Whether rows follow this page. */
    public boolean hasMore() {
        return meta.path("has_more").asBoolean(false);
    }

    /** The {@code starting_after} of the next page ({@code null} on the last one). */
    public String nextCursor() {
        JsonNode c = meta.path("next_cursor");
        return c.isTextual() ? c.asText() : null;
    }
}
