package dev.kuatia;

/**
 * One problem found in an input: a stable {@code code} ({@code VALIDATION_ERROR.REQUIRED}, {@code INVALID_RUC}, ...),
 * the JSON {@code path} of the field at fault ({@code items[1].iva}, empty for the whole input) and a message.
 */
public record Finding(String code, String path, String message) implements java.io.Serializable {}
