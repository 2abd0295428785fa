package dev.leasehold.cli;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ./leasehold} script at the root of the source tree, run in a copy of the tree's shape
 * with stand-ins for {@code mvn} (which writes Maven 3.8's stray colour resets and "builds" the
 * jar) and {@code java}: it says that it builds, lets no escape code through (issue 22), rebuilds
 * when the main code of any module in the jar changed, and reports a failed build.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LauncherScriptTest {

    private static final List<String> JAR_MODULES = List.of("leasehold-core", "leasehold-launcher",
            "leasehold-redis", "leasehold-zookeeper", "leasehold-etcd", "leasehold-cli");
    private static final String FAKE_MVN = """
            #!/bin/sh
            echo build >> "$LEASEHOLD_TEST_CALLS"
            printf '\\033[0m\\033[0m'
            printf '\\033[0m\\033[0m' >&2
            [ -z "$LEASEHOLD_TEST_FAIL" ] || { echo "[ERROR] compilation failed" >&2; exit 1; }
            mkdir -p leasehold-cli/target && touch leasehold-cli/target/leasehold.jar
            """;
    private static final String FAKE_JAVA = """
            #!/bin/sh
            echo "java $*"
            """;

    @TempDir
    Path tree;
    @TempDir
    Path bin;

    private Path calls;

    @BeforeEach
    void copyTheScriptIntoATreeOfTheSameShape() throws IOException {
        Files.copy(Path.of("..", "leasehold"), tree.resolve("leasehold"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.writeString(tree.resolve("pom.xml"), "<project/>");
        for (String module : JAR_MODULES) {
            Files.createDirectories(tree.resolve(module).resolve("src/main"));
            Files.writeString(tree.resolve(module).resolve("pom.xml"), "<project/>");
            Files.writeString(tree.resolve(module).resolve("src/main/Code.java"), "class Code {}");
        }
        executable(bin.resolve("mvn"), FAKE_MVN);
        executable(bin.resolve("java"), FAKE_JAVA);
        calls = bin.resolve("calls");
    }

    @Test
    void theFirstRunSaysItBuildsWithoutStrayEscapeCodesThenRunsTheJar() throws Exception {
        Result first = leasehold(false, "inspect", "job");

        assertThat(first.exit()).isZero();
        assertThat(first.stderr()).contains("leasehold: building").doesNotContain("\u001b").doesNotContain("[0m");
        assertThat(first.stdout()).contains("-jar").contains("leasehold.jar inspect job").doesNotContain("\u001b");
        assertThat(Files.readAllLines(calls)).hasSize(1);

        Result again = leasehold(false, "inspect", "job");
        assertThat(again.stderr()).doesNotContain("building");
        assertThat(Files.readAllLines(calls)).as("an up-to-date jar is not rebuilt").hasSize(1);
    }

    @Test
    void aChangeInTheMainCodeOfAnyModuleInTheJarRebuildsIt() throws Exception {
        leasehold(false, "inspect", "job");
        Path jar = tree.resolve("leasehold-cli/target/leasehold.jar");
        for (String module : JAR_MODULES) {
            for (String other : JAR_MODULES) {
                for (String input : List.of("pom.xml", "src/main/Code.java")) {
                    hoursAgo(tree.resolve(other).resolve(input), 2);
                }
            }
            hoursAgo(tree.resolve("pom.xml"), 2);
            hoursAgo(jar, 1);
            hoursAgo(tree.resolve(module).resolve("src/main/Code.java"), 0);
            Result rebuilt = leasehold(false, "inspect", "job");
            assertThat(rebuilt.stderr()).as("after a change in %s", module).contains("leasehold: building");
        }
        assertThat(Files.readAllLines(calls)).hasSize(1 + JAR_MODULES.size());
    }

    @Test
    void aFailedBuildIsReportedAndNothingRuns() throws Exception {
        Result failed = leasehold(true, "inspect", "job");

        assertThat(failed.exit()).isEqualTo(ExitCodes.INTERNAL);
        assertThat(failed.stderr()).contains("[ERROR] compilation failed").contains("the build failed")
                .doesNotContain("\u001b");
        assertThat(failed.stdout()).doesNotContain("java");
    }

    private record Result(int exit, String stdout, String stderr) {
    }

    private Result leasehold(boolean failBuild, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(tree.resolve("leasehold").toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(bin, "out", ".txt");
        Path err = Files.createTempFile(bin, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("PATH", bin + ":/usr/bin:/bin");
        builder.environment().put("LEASEHOLD_TEST_CALLS", calls.toString());
        builder.environment().remove("LEASEHOLD_JAVA_OPTS");
        if (failBuild) {
            builder.environment().put("LEASEHOLD_TEST_FAIL", "1");
        }
        Process process = builder.start();
        process.getOutputStream().close();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the script exits").isTrue();
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static void hoursAgo(Path file, int hours) throws IOException {
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(hours, ChronoUnit.HOURS)));
    }

    private static void executable(Path file, String script) throws IOException {
        Files.writeString(file, script);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
