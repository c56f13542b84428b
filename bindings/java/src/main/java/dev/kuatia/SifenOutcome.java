package dev.kuatia;

import java.util.Objects;

/**
 * What came of a SIFEN job the host posted ({@code kuatia_sifen_outcome}), reported with
 * {@link Service#reportSifen}: an {@link Answer} (SIFEN, or whatever stands in front of it, answered with an HTTP
 * status and raw body bytes), a {@link Timeout} (no answer in time: the request may or may not have been
 * processed) or a {@link Failed} call (no answer at all: DNS, connection refused, TLS handshake).
 */
public sealed interface SifenOutcome {

    /** SIFEN answered: the HTTP {@code status} (0..65535) and the {@code body} exactly as received. */
    record Answer(int status, byte[] body) implements SifenOutcome {
        /** Checks the status range and copies the body. */
        public Answer {
            if (status < 0 || status > 0xFFFF) {
                throw new IllegalArgumentException("HTTP status " + status + " out of range");
            }
            body = Objects.requireNonNull(body, "body").clone();
        }

        /** A copy of the body. */
        @Override
        public byte[] body() {
            return body.clone();
        }
    }

    /** No answer within the host's timeout. */
    record Timeout() implements SifenOutcome {}

    /** The call failed before any answer; {@code message} is the transport's. */
    record Failed(String message) implements SifenOutcome {
        /** Rejects a null message. */
        public Failed {
            Objects.requireNonNull(message, "message");
        }
    }

    /** {@link Answer}: SIFEN answered with {@code status} and the raw {@code body}. */
    static SifenOutcome answer(int status, byte[] body) {
        return new Answer(status, body);
    }

    /** {@link Timeout}: no answer within the host's timeout. */
    static SifenOutcome timeout() {
        return new Timeout();
    }

    /** {@link Failed}: the call failed before any answer, with the transport's {@code message}. */
    static SifenOutcome failed(String message) {
        return new Failed(message);
    }
}
