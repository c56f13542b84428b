package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Java example compiles against this binding and prints what it promises. */
class ReadmeExampleTest {
    @Test
    void readmeExampleCompilesAndRuns(@TempDir Path dir) throws Exception {
        String readme = Files.readString(Fixtures.root().resolve("README.md"));
        Matcher m = Pattern.compile("(?s)<!-- java-example -->\\s*```java\\n(.*?)```").matcher(readme);
        assertTrue(m.find(), "README.md has no Java example after <!-- java-example -->");
        Path source = dir.resolve("Example.java");
        Files.writeString(source, m.group(1));

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests need a JDK, not a JRE");
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, null, diagnostics, "-Xlint:all", "-Werror", "-d", dir.toString(), "-cp",
                System.getProperty("java.class.path"), source.toString());
        assertEquals(0, rc, diagnostics.toString(StandardCharsets.UTF_8));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                getClass().getClassLoader())) {
            Method main = loader.loadClass("Example").getMethod("main", String[].class);
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(saved);
        }
        // The CDC up to the random security code is fixed by the request, the sandbox profile, the number and date.
        String printed = out.toString(StandardCharsets.UTF_8).trim();
        assertTrue(printed.matches("0144444401700100100000012202503101\\d{10} 001-001-0000001 \\d+ bytes of KuDE"),
                printed);
    }
}
