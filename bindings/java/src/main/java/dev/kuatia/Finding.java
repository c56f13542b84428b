package dev.kuatia;

import java.util.Map;

/**
 * One problem found in an input: a stable {@code code} ({@code VALIDATION_ERROR.REQUIRED}, {@code INVALID_RUC}, ...),
 * the JSON {@code path} of the field at fault ({@code items[1].iva}, empty for the whole input), a message in the
 * chosen language ({@link Kuatia#setLanguage}), the {@code rule} that found it ({@code ruc.check_digit};
 * {@code unclassified} while its text is still an English sentence) and the rule's {@code params}.
 */
public record Finding(String code, String path, String message, String rule, Map<String, Object> params)
        implements java.io.Serializable {
    /** A finding with an unmodifiable copy of the parameters. */
    public Finding {
        params = Map.copyOf(params);
    }

    /** A finding without a rule ({@code unclassified}, no parameters). */
    public Finding(String code, String path, String message) {
        this(code, path, message, "unclassified", Map.of());
    }
}
