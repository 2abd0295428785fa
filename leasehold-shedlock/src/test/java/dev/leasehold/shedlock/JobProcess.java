package dev.leasehold.shedlock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** {@link JobProcessMain} in a JVM of its own, on this JVM's class path, killed with SIGKILL once it unlocked. */
final class JobProcess {

    private JobProcess() {
    }

    /**
     * Runs it on {@code backend} (its environment), waits for its unlock, then kills it and waits for
     * its end.
     *
     * @return the {@link System#nanoTime()} range in which its acquire was sent: from, to
     */
    static long[] unlockThenDie(Map<String, String> backend, String name, Duration lockAtMostFor, Duration lockAtLeastFor)
            throws Exception {
        Path log = Files.createTempFile("shedlock-job-", ".log");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                JobProcessMain.class.getName(), name, Long.toString(lockAtMostFor.toMillis()),
                Long.toString(lockAtLeastFor.toMillis()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
        builder.environment().putAll(backend);
        Process process = builder.start();
        try {
            CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> firstLine(process));
            String said = line.get(60, TimeUnit.SECONDS);
            long heard = System.nanoTime();
            if (said == null || !said.startsWith("unlocked ")) {
                throw new IllegalStateException("the job process said '" + said + "': " + Files.readString(log));
            }
            return new long[] {heard - Long.parseLong(said.substring("unlocked ".length())), heard};
        } finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(log);
        }
    }

    private static String firstLine(Process process) {
        try {
            return new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
        } catch (IOException e) {
            return "nothing (" + e + ")";
        }
    }
}
