package dev.kuatia;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An error answer of the {@code /v1} API thrown by the typed calls of {@link Service} ({@link Service#handle}
 * returns it as a {@link Service.Response} instead): the HTTP {@link #status()}, the registry {@link #code()}, the
 * message, and the findings {@link #details()} of a 422 (an empty array otherwise).
 */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final transient JsonNode details;

    ApiException(int status, String code, String message, JsonNode details) {
        super(status + " " + code + ": " + message);
        this.status = status;
        this.code = code;
        this.details = details;
    }

    /** The HTTP status of the answer. */
    public int status() {
        return status;
    }

    /** The stable code of the registry ({@code INVALID_QUERY}, {@code NOT_FOUND}, ...). */
    public String code() {
        return code;
    }

    /** Every finding ({@code code}, {@code path}, {@code message}) of a 422; an empty array otherwise. */
    public JsonNode details() {
        return details;
    }
}
