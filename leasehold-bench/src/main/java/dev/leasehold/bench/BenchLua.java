package dev.leasehold.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The text of a benchmark's own {@code .lua} file (beside this class on the class path), for the
 * probes and floors that send their scripts themselves, as a raw client would; Leasehold's scripts
 * go through {@code RedisScript}.
 */
final class BenchLua {

    private BenchLua() {
    }

    /**
     * @throws IllegalStateException if the file is not on the class path (a jar built without its resources)
     */
    static String text(String name) {
        try (InputStream in = BenchLua.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing beside " + BenchLua.class.getName()
                        + " on the class path; rebuild the benchmark jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name, e);
        }
    }
}
