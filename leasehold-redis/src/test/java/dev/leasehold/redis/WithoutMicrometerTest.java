package dev.leasehold.redis;

import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer is an optional dependency: a client that is given no registry loads and works without
 * it. The probe runs in a class loader built from this module's test class path minus every
 * Micrometer jar, as an application without Micrometer would see Leasehold.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WithoutMicrometerTest {

    private static final String LETTUCE_JFR = "io.lettuce.core.jfr";

    @Test
    void aClientWithoutARegistryWorksWithNoMicrometerOnTheClassPath() throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        URL[] urls = Arrays.stream(classPath.split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("micrometer-"))
                // A second slf4j-simple would reopen, and so truncate, the module's test log.
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("slf4j-simple"))
                .map(WithoutMicrometerTest::url)
                .toArray(URL[]::new);
        assertThat(urls.length).as("the test class path").isGreaterThan(3);
        try (RedisServer server = RedisServer.builder().start();
             URLClassLoader withoutMicrometer = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            Class<?> probe = Class.forName(NoMicrometerProbe.class.getName(), true, withoutMicrometer);
            assertThat(probe.getClassLoader()).as("isolated from this test's loader").isSameAs(withoutMicrometer);
            // A second copy of Lettuce in one JVM cannot register its JFR event classes again; its JFR
            // recording is irrelevant here, so that copy starts with it off.
            String jfr = System.setProperty(LETTUCE_JFR, "false");
            Object outcome;
            try {
                outcome = probe.getMethod("run", String.class).invoke(null, server.uri());
            } finally {
                if (jfr == null) {
                    System.clearProperty(LETTUCE_JFR);
                } else {
                    System.setProperty(LETTUCE_JFR, jfr);
                }
            }
            assertThat(outcome).asString().startsWith("token ").endsWith("renewed, RELEASED");
        }
    }

    private static URL url(String entry) {
        try {
            return Path.of(entry).toUri().toURL();
        } catch (java.net.MalformedURLException malformed) {
            throw new IllegalStateException(malformed);
        }
    }
}
