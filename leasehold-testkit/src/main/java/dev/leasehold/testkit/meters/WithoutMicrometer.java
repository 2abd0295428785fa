package dev.leasehold.testkit.meters;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * Runs a probe as an application without Micrometer would: in a class loader built from the test
 * class path minus every Micrometer jar, so a backend can show that a client built without
 * {@code meterRegistry(...)} loads and works with Micrometer absent (it is an optional dependency).
 */
public final class WithoutMicrometer {

    private WithoutMicrometer() {
    }

    /**
     * Loads {@code probe} afresh in that class loader and returns what its
     * {@code public static String run(String)} returned for {@code argument}.
     *
     * @throws AssertionError if Micrometer is still reachable from that loader (the run would prove nothing)
     * @throws Exception      whatever the probe threw
     */
    public static String run(Class<?> probe, String argument) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        URL[] urls = Arrays.stream(classPath.split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("micrometer-"))
                // A second slf4j-simple would reopen, and so truncate, the module's test log.
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("slf4j-simple"))
                .map(WithoutMicrometer::url)
                .toArray(URL[]::new);
        // Not closed: a client library may still load classes while it shuts down in the background
        // after the probe returned (jetcd's event loops do); the loader goes with the garbage.
        URLClassLoader loader = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry", false, loader);
            throw new AssertionError("Micrometer is on the probe's class path: the probe would prove nothing");
        } catch (ClassNotFoundException expected) {
            // As in an application without Micrometer.
        }
        Class<?> isolated = Class.forName(probe.getName(), true, loader);
        try {
            return (String) isolated.getMethod("run", String.class).invoke(null, argument);
        } catch (InvocationTargetException failed) {
            throw failed.getCause() instanceof Exception cause ? cause : failed;
        }
    }

    /**
     * For the probes: a whole client life (a watchdog lease renewed at least once, checked, released),
     * then closes {@code client}.
     *
     * @return the token and the release status
     */
    public static String lifeOf(LockClient client) throws InterruptedException {
        try (client) {
            Lease lease = client.lock("no-micrometer", LockOptions.watchdog(Duration.ofMillis(600)))
                    .acquire(Duration.ofSeconds(5));
            Thread.sleep(900);
            lease.ensureValid();
            return "token " + lease.token() + ", renewed, " + lease.release();
        }
    }

    private static URL url(String entry) {
        try {
            return Path.of(entry).toUri().toURL();
        } catch (MalformedURLException malformed) {
            throw new IllegalStateException(malformed);
        }
    }
}
