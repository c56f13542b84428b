package dev.kuatia;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayList;
import java.util.List;

/**
 * A failed kuatia call: the C status, the stable code, message and path of the first problem, and every finding
 * (validation reports all problems at once). Messages never contain secrets such as a P12 password.
 */
public final class KuatiaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status status;
    private final String code;
    private final String path;
    private final List<Finding> findings;
    private final String findingsJson;

    /** An exception with the given parts (for tests and hosts that rethrow). */
    public KuatiaException(Status status, String code, String path, String message, List<Finding> findings,
            String findingsJson) {
        super(message);
        this.status = status;
        this.code = code;
        this.path = path;
        this.findings = List.copyOf(findings);
        this.findingsJson = findingsJson;
    }

    /** Reads a live C error (which the caller frees); {@code err} NULL gives an exception from the status alone. */
    static KuatiaException fromNative(int statusCode, Pointer err) {
        Status status = Status.of(statusCode);
        if (err == null) {
            return new KuatiaException(status, status.name(), "", "kuatia call failed with status " + statusCode,
                    List.of(), "[]");
        }
        KuatiaLibrary lib = Ffi.LIB;
        long count = lib.kuatia_error_count(err).longValue();
        List<Finding> findings = new ArrayList<>();
        PointerByReference c = new PointerByReference();
        PointerByReference p = new PointerByReference();
        PointerByReference m = new PointerByReference();
        for (long i = 0; i < count; i++) {
            if (lib.kuatia_error_finding(err, new KuatiaLibrary.SizeT(i), c, p, m) == 0) {
                break;
            }
            findings.add(new Finding(Ffi.cString(c.getValue()), Ffi.cString(p.getValue()),
                    Ffi.cString(m.getValue())));
        }
        return new KuatiaException(Status.of(lib.kuatia_error_status(err)), Ffi.cString(lib.kuatia_error_code(err)),
                Ffi.cString(lib.kuatia_error_path(err)), Ffi.cString(lib.kuatia_error_message(err)), findings,
                Ffi.cString(lib.kuatia_error_json(err)));
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

    /** Every finding as the JSON array kuatia wrote ({@code [{"code","path","message"}]}). */
    public String findingsJson() {
        return findingsJson;
    }

    @Override
    public String toString() {
        return "KuatiaException[" + status + " " + code + (path.isEmpty() ? "" : " at " + path) + "]: "
                + getMessage();
    }
}
