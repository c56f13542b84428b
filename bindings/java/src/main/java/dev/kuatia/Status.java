package dev.kuatia;

/** Outcome of a C call ({@code kuatia_status}); the numbers are part of the ABI and never change. */
public enum Status {
    /** Success. */
    OK(0),
    /** A required argument was missing (the exception's path names it). */
    INVALID_ARGUMENT(1),
    /** A text input was not valid UTF-8. */
    INVALID_UTF8(2),
    /** An input exceeded a size limit. */
    TOO_LARGE(3),
    /** The input was read but rejected: the exception carries every finding. */
    INVALID_INPUT(4),
    /** A key, certificate or signature operation failed ({@code P12_*}, {@code KEY_*}, ...). */
    SIGN_ERROR(5),
    /** A bug inside kuatia was caught at the C boundary; please report it. */
    PANIC(6),
    /** A status this binding does not know yet (a newer libkuatia). */
    UNKNOWN(-1);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The number in {@code kuatia.h}. */
    public int code() {
        return code;
    }

    /** The status for a number returned by the C library. */
    public static Status of(int code) {
        for (Status s : values()) {
            if (s.code == code && s != UNKNOWN) {
                return s;
            }
        }
        return UNKNOWN;
    }
}
