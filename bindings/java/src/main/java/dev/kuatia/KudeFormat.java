package dev.kuatia;

/** Paper format of the KuDE ({@code kuatia_kude_format}). */
public enum KudeFormat {
    /** A4 portrait, paginated. */
    A4(0),
    /** 80 mm receipt roll, one long page. */
    TICKET(1);

    private final int code;

    KudeFormat(int code) {
        this.code = code;
    }

    /** The number in {@code kuatia.h}. */
    public int code() {
        return code;
    }
}
