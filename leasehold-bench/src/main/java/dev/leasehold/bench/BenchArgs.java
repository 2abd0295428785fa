package dev.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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

    /**
     * Removes {@code name VALUE} from {@code args}, for an option of one benchmark's own, and returns
     * VALUE, or null when {@code name} is absent. Run before {@link #parse}, which refuses what it
     * does not know.
     *
     * @throws IllegalArgumentException with {@code missing} as its message if {@code name} is the last argument
     */
    static String take(List<String> args, String name, String missing) {
        int at = args.indexOf(name);
        if (at < 0) {
            return null;
        }
        if (at + 1 == args.size()) {
            throw new IllegalArgumentException(missing);
        }
        String value = args.get(at + 1);
        args.subList(at, at + 2).clear();
        return value;
    }

    /**
     * {@code value} of the option {@code arg} as a positive whole number.
     *
     * @throws IllegalArgumentException naming {@code arg} and {@code value} if it is not one
     */
    static int positive(String arg, String value) {
        try {
            int parsed = Integer.parseInt(value);
            if (parsed > 0) {
                return parsed;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new IllegalArgumentException(arg + " needs a positive whole number, got '" + value + "'");
    }

    /** Writes {@code report} to {@link #out()} and prints it. */
    void publish(String report) throws IOException {
        Files.writeString(out, report);
        System.out.print(report);
    }
}
