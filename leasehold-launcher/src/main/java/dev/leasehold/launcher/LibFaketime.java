package dev.leasehold.launcher;

import java.nio.file.Path;

/**
 * Debian's libfaketime, which the clock-step tests preload into a server or a client JVM
 * ({@code LD_PRELOAD} plus {@code FAKETIME}). {@code .ci/run} installs it; the tests that use it
 * fail, never skip, without it.
 */
public final class LibFaketime {

    /** Where Debian's {@code libfaketime} package puts the preloadable library. */
    public static final Path LIBRARY = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    private LibFaketime() {
    }
}
