package dev.kuatia;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * A signing key and its certificate ({@code kuatia_signer}). One signer may be used by any number of threads at
 * once. {@link #close()} frees it (the key is wiped), waiting for calls in flight; closing twice is harmless, and
 * using a closed signer throws {@link IllegalStateException}. A signer never closed is freed when collected.
 */
public final class Signer implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** The native handle, apart from the Signer so the cleaner does not keep the Signer reachable. */
    private static final class Handle implements Runnable {
        private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        private Pointer ptr;

        Handle(Pointer ptr) {
            this.ptr = ptr;
        }

        /** Frees the signer once; later calls do nothing. */
        @Override
        public void run() {
            lock.writeLock().lock();
            try {
                if (ptr != null) {
                    Ffi.LIB.kuatia_signer_free(ptr);
                    ptr = null;
                }
            } finally {
                lock.writeLock().unlock();
            }
        }
    }

    private final Handle handle;
    private final Cleaner.Cleanable cleanable;

    private Signer(Pointer ptr) {
        this.handle = new Handle(ptr);
        this.cleanable = CLEANER.register(this, handle);
    }

    /**
     * Loads a PKCS#12 ({@code .p12} / {@code .pfx}) key and certificate (RSA ≥ 2048 bits). The password is
     * encoded into native memory that is zeroed after the call; the caller may then wipe {@code password}.
     *
     * @throws KuatiaException {@link Status#SIGN_ERROR} with {@code P12_INVALID}, {@code P12_WRONG_PASSWORD},
     *     {@code KEY_UNSUPPORTED}, ...
     */
    public static Signer fromP12(byte[] p12, char[] password) {
        Objects.requireNonNull(p12, "p12");
        Objects.requireNonNull(password, "password");
        byte[] pass = utf8(password);
        try (Ffi.In p = Ffi.In.bytes(p12, false); Ffi.In w = Ffi.In.bytes(pass, true)) {
            Arrays.fill(pass, (byte) 0);
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            Ffi.check(Ffi.LIB.kuatia_signer_from_p12(p.ptr, p.len, w.ptr, w.len, out, err), err);
            return new Signer(out.getValue());
        } finally {
            Arrays.fill(pass, (byte) 0);
        }
    }

    /** Loads an unencrypted PEM private key ({@code PRIVATE KEY} or {@code RSA PRIVATE KEY}) and a PEM certificate. */
    public static Signer fromPem(String keyPem, String certPem) {
        try (Ffi.In k = Ffi.In.bytes(Objects.requireNonNull(keyPem, "keyPem").getBytes(StandardCharsets.UTF_8), true);
                Ffi.In c = Ffi.In.text(certPem, "certPem")) {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            Ffi.check(Ffi.LIB.kuatia_signer_from_pem(k.ptr, k.len, c.ptr, c.len, out, err), err);
            return new Signer(out.getValue());
        }
    }

    /**
     * TEST ONLY: the public sandbox key and self-signed certificate (RUC 44444401-7). SIFEN rejects its
     * signatures; it exists so tests produce reproducible documents.
     */
    public static Signer sandbox() {
        PointerByReference out = new PointerByReference();
        PointerByReference err = new PointerByReference();
        Ffi.check(Ffi.LIB.kuatia_signer_sandbox(out, err), err);
        return new Signer(out.getValue());
    }

    /** UTF-8 bytes of a password without making a String of it. */
    private static byte[] utf8(char[] password) {
        CharBuffer chars = CharBuffer.wrap(password);
        try {
            ByteBuffer buf = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(chars);
            byte[] out = new byte[buf.remaining()];
            buf.get(out);
            if (buf.hasArray()) {
                Arrays.fill(buf.array(), (byte) 0);
            }
            return out;
        } catch (CharacterCodingException e) {
            // The message names no character of the password.
            throw new IllegalArgumentException("the password is not valid Unicode (unpaired surrogate)");
        }
    }

    /** Runs {@code body} with the live handle; closing waits until it returns. */
    <T> T use(Function<Pointer, T> body) {
        handle.lock.readLock().lock();
        try {
            if (handle.ptr == null) {
                throw new IllegalStateException("the signer is closed");
            }
            return body.apply(handle.ptr);
        } finally {
            handle.lock.readLock().unlock();
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        handle.lock.readLock().lock();
        try {
            return handle.ptr == null;
        } finally {
            handle.lock.readLock().unlock();
        }
    }

    /** Frees the signer and wipes its key; safe to call more than once. */
    @Override
    public void close() {
        cleanable.clean();
    }
}
