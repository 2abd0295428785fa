package dev.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The command line shared by the self-contained benchmarks: {@code [--smoke] [--out FILE]}.
 *
 * @param smoke whether to run one short iteration per cell instead of the full measurement
 * @param out   where the Markdown report goes
 */
record BenchArgs(boolean smoke, Path out) {

    /**
     * @throws IllegalArgumentException on an unknown argument, naming it and the usage
     */
    static BenchArgs parse(String[] args, String program, Path defaultOut) {
        boolean smoke = false;
        Path out = defaultOut;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--smoke" -> smoke = true;
                case "--out" -> {
                    if (i + 1 == args.length) {
                        throw new IllegalArgumentException("--out needs a file; usage: " + program + " [--smoke] [--out FILE]");
                    }
                    out = Path.of(args[++i]);
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: " + program + " [--smoke] [--out FILE]");
            }
        }
        return new BenchArgs(smoke, out);
    }

    /** Writes {@code report} to {@link #out()} and prints it. */
    void publish(String report) throws IOException {
        Files.writeString(out, report);
        System.out.print(report);
    }
}
