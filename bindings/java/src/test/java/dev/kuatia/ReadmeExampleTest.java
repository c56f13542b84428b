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
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every Java block of the documentation (README.md, docs/*.md marked {@code <!-- test: java -->}) compiles and runs. */
class ReadmeExampleTest {
    @Test
    void docExamplesCompileAndRun(@TempDir Path dir) throws Exception {
        List<Path> docs = new ArrayList<>(List.of(Fixtures.root().resolve("README.md")));
        try (Stream<Path> pages = Files.list(Fixtures.root().resolve("docs"))) {
            pages.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        int examples = 0;
        boolean sawIssue = false;
        for (Path doc : docs) {
            Matcher m = Pattern.compile("(?s)<!-- test: java -->\n```java\n(.*?)```").matcher(Files.readString(doc));
            while (m.find()) {
                examples++;
                String printed = compileAndRun(dir.resolve("ex" + examples), m.group(1));
                if (m.group(1).contains("Kuatia.issue(")) {
                    sawIssue = true;
                    // The CDC up to the random security code is fixed by the request, the sandbox profile, the
                    // number and the date.
                    assertTrue(printed.matches(
                            "0144444401700100100000012202503101\\d{10} 001-001-0000001 \\d+ bytes of KuDE"), printed);
                }
            }
        }
        assertTrue(examples >= 2 && sawIssue, "README.md and docs/java.md should have Java examples");
    }

    private static String compileAndRun(Path dir, String code) throws Exception {
        Files.createDirectories(dir);
        Matcher cls = Pattern.compile("public class (\\w+)").matcher(code);
        assertTrue(cls.find(), "a Java example must declare a public class");
        Path source = dir.resolve(cls.group(1) + ".java");
        Files.writeString(source, code);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests need a JDK, not a JRE");
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, null, diagnostics, "-Xlint:all", "-Werror", "-d", dir.toString(), "-cp",
                System.getProperty("java.class.path"), source.toString());
        assertEquals(0, rc, diagnostics.toString(StandardCharsets.UTF_8));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                ReadmeExampleTest.class.getClassLoader())) {
            Method main = loader.loadClass(cls.group(1)).getMethod("main", String[].class);
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8).trim();
    }
}
