package dev.leasehold.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The log scan finds what must never be logged, and only that. */
class LogScanTest {

    @TempDir
    Path dir;

    private List<String> scan(String... logLines) throws IOException {
        Path log = Files.write(dir.resolve("tests.log"), List.of(logLines));
        Path secrets = Files.write(dir.resolve("secrets.txt"), List.of("s3cret-pw", "pw"));
        return LogScan.scan(log, secrets);
    }

    @Test
    void aPasswordInAnyLineFailsTheScanWithoutRepeatingIt() throws IOException {
        List<String> findings = scan("[main] WARN x - connecting to redis://:s3cret-pw@127.0.0.1:6379 failed",
                "[main] INFO y - all fine");
        assertThat(findings).hasSize(1);
        assertThat(findings.get(0)).contains("tests.log:1").contains("<password>").doesNotContain("s3cret-pw");
    }

    @Test
    void aShortPasswordIsFoundAsAWordNotInsideOtherWords() throws IOException {
        assertThat(scan("AUTH default pw")).hasSize(1);
        assertThat(scan("the pwd and swpwx are not it")).isEmpty();
    }

    @Test
    void aFullHolderIdFailsTheScanButItsRedactedFormPasses() throws IOException {
        String holder = "Q2xpZW50LXNlY3JldC0xMg:1a";
        assertThat(scan("Renewal of lock 'a' (holder " + holder + ") failed")).hasSize(1)
                .allSatisfy(finding -> assertThat(finding).doesNotContain(holder));
        assertThat(scan("Renewal of lock 'a' (holder Q2xpZW…) failed")).isEmpty();
    }

    @Test
    void lockNamesAndUrisAreNoHolderIds() throws IOException {
        assertThat(scan("Lease on lock 'order-processing-queue-x:17' (token 12) lost",
                "Redis at redis://127.0.0.1:40123: connect failed")).isEmpty();
    }

    @Test
    void theCommandLineFailsOnAFinding() throws IOException {
        Path log = Files.write(dir.resolve("bad.log"), List.of("password s3cret-pw"));
        Path secrets = Files.write(dir.resolve("secrets.txt"), List.of("s3cret-pw"));
        assertThatThrownBy(() -> LogScan.main(new String[] {log.toString(), secrets.toString()}))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("1 log line(s)");
        LogScan.main(new String[] {dir.resolve("missing.log").toString(), secrets.toString()});
    }

    @Test
    void recordedPasswordsAreAppendedToTheSecretsFile() throws IOException {
        Path file = dir.resolve("nested/secrets.txt");
        String before = System.setProperty(TestSecrets.PROPERTY, file.toString());
        try {
            RedisServer.builder().requirePass("first-secret").aclUser("app", "second-secret");
        } finally {
            if (before == null) {
                System.clearProperty(TestSecrets.PROPERTY);
            } else {
                System.setProperty(TestSecrets.PROPERTY, before);
            }
        }
        assertThat(Files.readAllLines(file)).containsExactly("first-secret", "second-secret");
    }
}
