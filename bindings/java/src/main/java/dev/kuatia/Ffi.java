package dev.kuatia;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The plumbing every call shares: loading libkuatia, native inputs, owned results and status checks. */
final class Ffi {
    private Ffi() {}

    /** Shared JSON reader (thread-safe once configured). */
    static final ObjectMapper JSON = new ObjectMapper();

    /** The loaded library; loaded on first use of any wrapper. */
    static final KuatiaLibrary LIB = load();

    /**
     * Loads libkuatia: {@code -Djna.library.path} when given (JNA reads it), else {@code $KUATIA_LIB_DIR}, else
     * {@code ../../target/release} then {@code ../../target/debug} (the layout when running from bindings/java),
     * else the system's library path, else the copy the published jar carries ({@code linux-x86-64/libkuatia.so},
     * extracted by JNA).
     */
    private static KuatiaLibrary load() {
        String file = System.mapLibraryName("kuatia");
        List<String> tried = new ArrayList<>();
        if (System.getProperty("jna.library.path") == null) {
            String env = System.getenv("KUATIA_LIB_DIR");
            List<String> dirs = env != null && !env.isEmpty()
                    ? List.of(env)
                    : List.of("../../target/release", "../../target/debug");
            for (String dir : dirs) {
                Path p = Path.of(dir).toAbsolutePath().normalize();
                tried.add(p.toString());
                if (Files.isRegularFile(p.resolve(file))) {
                    NativeLibrary.addSearchPath("kuatia", p.toString());
                    break;
                }
            }
        } else {
            tried.add("jna.library.path=" + System.getProperty("jna.library.path"));
        }
        try {
            return Native.load("kuatia", KuatiaLibrary.class);
        } catch (UnsatisfiedLinkError e) {
            UnsatisfiedLinkError wrapped = new UnsatisfiedLinkError("cannot load " + file + " (looked in " + tried
                    + " and the system path); build it with `cargo build -p kuatia-ffi --release` and set "
                    + "KUATIA_LIB_DIR or -Djna.library.path: " + e.getMessage());
            wrapped.initCause(e);
            throw wrapped;
        }
    }

    /** A native copy of one input, freed (and, for secrets, zeroed) on close. */
    static final class In implements AutoCloseable {
        /** Stands for an optional input that was not given: a NULL pointer of length 0. */
        private static final In NONE = new In(null, 0, false);

        final Pointer ptr;
        final KuatiaLibrary.SizeT len;
        private final Memory mem;
        private final boolean secret;

        private In(Memory mem, long len, boolean secret) {
            this.mem = mem;
            this.ptr = mem;
            this.len = new KuatiaLibrary.SizeT(len);
            this.secret = secret;
        }

        /** Copies {@code data}; a zero-length input still gets a valid (non-NULL) pointer. */
        static In bytes(byte[] data, boolean secret) {
            Memory m = new Memory(Math.max(1, data.length));
            m.write(0, data, 0, data.length);
            return new In(m, data.length, secret);
        }

        /** A required text input as UTF-8; {@code name} is the Java parameter named in the NullPointerException. */
        static In text(String s, String name) {
            return bytes(Objects.requireNonNull(s, name).getBytes(StandardCharsets.UTF_8), false);
        }

        /** An optional text input: {@code null} becomes NULL ("not given"). */
        static In optText(String s) {
            return s == null ? NONE : bytes(s.getBytes(StandardCharsets.UTF_8), false);
        }

        @Override
        public void close() {
            if (mem != null) {
                if (secret) {
                    mem.clear();
                }
                mem.close();
            }
        }
    }

    /** The language messages are read in ({@link Kuatia#setLanguage}); a tag the library parses. */
    static volatile String language = "es";

    /** {@code lang} ({@code null}: the chosen language) as a NUL-terminated C string, freed by the caller. */
    static Memory cLang(String lang) {
        byte[] b = (lang == null ? language : lang).replace("\0", "").getBytes(StandardCharsets.UTF_8);
        Memory m = new Memory(b.length + 1L);
        m.write(0, b, 0, b.length);
        m.setByte(b.length, (byte) 0);
        return m;
    }

    /** Throws the {@link KuatiaException} for a failed call, and frees the C error either way. */
    static void check(int status, PointerByReference err) {
        Pointer e = err.getValue();
        if (status == Status.OK.code()) {
            // *err is written only on failure; free defensively should that ever change.
            if (e != null) {
                LIB.kuatia_error_free(e);
            }
            return;
        }
        try {
            throw KuatiaException.fromNative(status, e);
        } finally {
            if (e != null) {
                LIB.kuatia_error_free(e);
            }
        }
    }

    /** One C call that fills one owned buffer. */
    @FunctionalInterface
    interface OneOut {
        int call(KuatiaLibrary.Bytes out, PointerByReference err);
    }

    /** Runs {@code call}, checks its status and returns a copy of its buffer, which is freed in every case. */
    static byte[] bytesOf(OneOut call) {
        KuatiaLibrary.Bytes out = new KuatiaLibrary.Bytes();
        PointerByReference err = new PointerByReference();
        try {
            check(call.call(out, err), err);
            return copy(out);
        } finally {
            LIB.kuatia_bytes_free(out);
        }
    }

    /** As {@link #bytesOf}, decoded as UTF-8 text. */
    static String textOf(OneOut call) {
        return new String(bytesOf(call), StandardCharsets.UTF_8);
    }

    /** As {@link #bytesOf}, parsed as JSON. */
    static JsonNode jsonOf(OneOut call) {
        return parse(textOf(call));
    }

    /** The bytes of a filled buffer (empty for a NULL one). */
    static byte[] copy(KuatiaLibrary.Bytes b) {
        long len = b.len.longValue();
        if (b.ptr == null || len == 0) {
            return new byte[0];
        }
        if (len > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("kuatia returned " + len + " bytes, more than a Java array holds");
        }
        return b.ptr.getByteArray(0, (int) len);
    }

    /** A borrowed C string owned by kuatia, as Java text ({@code ""} for NULL). */
    static String cString(Pointer p) {
        return p == null ? "" : p.getString(0, StandardCharsets.UTF_8.name());
    }

    /** Parses JSON that kuatia wrote; a failure here is a bug on one side of the boundary. */
    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("kuatia returned invalid JSON: " + e.getOriginalMessage(), e);
        }
    }
}
