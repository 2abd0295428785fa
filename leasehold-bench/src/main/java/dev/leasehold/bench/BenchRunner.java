package dev.leasehold.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Runs every benchmark and writes the Markdown report and its charts.
 *
 * <pre>
 * java -jar leasehold-bench/target/benchmarks.jar [--smoke] [--out FILE]
 * </pre>
 *
 * {@code --out} defaults to {@code leasehold-bench/RESULTS.md} (run from the repository root, as
 * {@code leasehold-bench/run.sh} does); {@code --smoke} runs each workload for one very short
 * iteration, to check the pipeline rather than to measure. The charts go to {@code charts/} beside
 * the report (see {@link ResultsCharts}).
 *
 * <p>A cell that fails is reported as failed and the run goes on. The exit code is 1 if a
 * Leasehold cell failed, 0 otherwise (a peer's failed cell is a finding about the peer).
 */
public final class BenchRunner {

    private BenchRunner() {
    }

    public static void main(String[] args) throws IOException {
        BenchSettings settings = BenchSettings.full();
        Path out = Path.of("leasehold-bench", "RESULTS.md");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--smoke" -> settings = BenchSettings.smoke();
                case "--out" -> {
                    if (i + 1 == args.length) {
                        usage("--out needs a file");
                    }
                    out = Path.of(args[++i]);
                }
                default -> usage("unknown argument " + args[i]);
            }
        }
        Progress progress = new Progress(System.out);
        progress.step("settings: " + settings.name() + "; writing " + out.toAbsolutePath());
        Path report = out;
        // Written after every workload, so a run killed later still leaves the finished ones on disk.
        BenchResults results = BenchRun.execute(settings, progress, partial -> {
            try {
                ResultsWriter.write(partial, report);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        results.failures().forEach(failure -> progress.step(failure.contender().label() + " " + failure.report()));
        progress.step("done: " + out.toAbsolutePath());
        if (results.leaseholdFailed()) {
            System.exit(1);
        }
    }

    private static void usage(String problem) {
        System.err.println(problem + "\nusage: java -jar benchmarks.jar [--smoke] [--out FILE]");
        System.exit(2);
    }
}
