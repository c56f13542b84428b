package dev.kuatia;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A failed kuatia call: the C status, the stable code, message (in the chosen language, {@link Kuatia#setLanguage}),
 * path and rule of the first problem, and every finding (validation reports all problems at once). Messages never contain secrets such as a P12 password.
 */
public final class KuatiaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status status;
    private final String code;
    private final String path;
    private final List<Finding> findings;
    private final String findingsJson;
    private final String rule;

    /** An exception with the given parts (for tests and hosts that rethrow). */
    public KuatiaException(Status status, String code, String path, String message, List<Finding> findings,
            String findingsJson) {
        this(status, code, path, message, findings, findingsJson, "unclassified");
    }

    /** An exception with the given parts and the first problem's rule id. */
    public KuatiaException(Status status, String code, String path, String message, List<Finding> findings,
            String findingsJson, String rule) {
        super(message);
        this.status = status;
        this.code = code;
        this.path = path;
        this.findings = List.copyOf(findings);
        this.findingsJson = findingsJson;
        this.rule = rule == null || rule.isEmpty() ? "unclassified" : rule;
    }

    /** Reads a live C error (which the caller frees); {@code err} NULL gives an exception from the status alone. */
    static KuatiaException fromNative(int statusCode, Pointer err) {
        Status status = Status.of(statusCode);
        if (err == null) {
            return new KuatiaException(status, status.name(), "", "kuatia call failed with status " + statusCode,
                    List.of(), "[]");
        }
        KuatiaLibrary lib = Ffi.LIB;
        String json;
        String message;
        try (Memory lang = Ffi.cLang(null)) {
            json = Ffi.cString(lib.kuatia_error_json_in(err, lang));
            message = Ffi.cString(lib.kuatia_error_message_in(err, lang));
        }
        List<Finding> findings = new ArrayList<>();
        for (JsonNode f : Ffi.parse(json.isEmpty() ? "[]" : json)) {
            findings.add(Kuatia.finding(f));
        }
        return new KuatiaException(Status.of(lib.kuatia_error_status(err)), Ffi.cString(lib.kuatia_error_code(err)),
                Ffi.cString(lib.kuatia_error_path(err)), message, findings, json,
                Ffi.cString(lib.kuatia_error_rule(err)));
    }

    /** The C status of the failed call. */
    public Status status() {
        return status;
    }

    /** Stable code of the first problem, e.g. {@code INVALID_CDC}, {@code P12_WRONG_PASSWORD}. */
    public String code() {
        return code;
    }

    /** JSON path of the field at fault ({@code items[2].iva}) or the argument name; empty for the whole input. */
    public String path() {
        return path;
    }

    /** Every finding, in order (the first one is {@link #code()}/{@link #path()}/{@link #getMessage()}). */
    public List<Finding> findings() {
        return findings;
    }

    /** Stable id of the rule that found the first problem ({@code ruc.check_digit}), or {@code unclassified}. */
    public String rule() {
        return rule;
    }

    /** The parameters of the first problem's rule ({@code {expected=1, got=2}}); empty when it has none. */
    public Map<String, Object> params() {
        return findings.isEmpty() ? Map.of() : findings.get(0).params();
    }

    /** Every finding as the JSON array kuatia wrote ({@code [{"code","path","message","rule","params"}]}). */
    public String findingsJson() {
        return findingsJson;
    }

    @Override
    public String toString() {
        return "KuatiaException[" + status + " " + code + (path.isEmpty() ? "" : " at " + path) + "]: "
                + getMessage();
    }
}
