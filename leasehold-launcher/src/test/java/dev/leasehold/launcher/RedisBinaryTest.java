package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisBinaryTest {

    @Test
    void locatesARunnableBinaryAndReadsItsVersion() {
        RedisBinary binary = RedisBinary.locate();

        assertThat(binary).isSameAs(RedisBinary.locate());
        assertThat(binary.path()).exists();
        assertThat(binary.version()).matches("\\d+\\.\\d+\\.\\d+");
    }

    @Test
    void embeddedBinaryIsExtractedOnceAndServes() {
        RedisBinary embedded = RedisBinary.embedded();

        assertThat(embedded).isSameAs(RedisBinary.embedded());
        assertThat(Files.isExecutable(embedded.path())).isTrue();
        assertThat(embedded.path().getFileName().toString()).startsWith("redis-server-");
        assertThat(embedded.version()).startsWith("6.");
        try (RedisServer server = RedisServer.builder().binary(embedded.path()).appendFsyncAlways().start()) {
            assertThat(server.command("PING")).isEqualTo("PONG");
            server.command("SET", "k", "v");
            server.kill();
            server.restart();
            assertThat(server.command("GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void detectsTlsSupport() {
        // Both the Debian build and the embedded-redis build link OpenSSL.
        assertThat(RedisBinary.locate().supportsTls()).isTrue();
        assertThat(RedisBinary.embedded().supportsTls()).isTrue();
    }

    @Test
    void aRedis6BuildWithoutTlsIsDetected(@TempDir Path dir) throws IOException {
        Path fake = script(dir.resolve("redis-server"), """
                case "$1" in
                  --version) echo 'Redis server v=6.2.0 sha=00000000:0 malloc=libc bits=64' ;;
                  *) echo "*** FATAL CONFIG FILE ERROR (Redis 6.2.0) ***"; echo "Bad directive or wrong number of arguments"; exit 1 ;;
                esac""");

        assertThat(RedisBinary.of(fake).version()).isEqualTo("6.2.0");
        assertThat(RedisBinary.of(fake).supportsTls()).isFalse();
    }

    @Test
    void aRedisOlderThan6HasNoTls(@TempDir Path dir) throws IOException {
        Path fake = script(dir.resolve("redis-server"), "echo 'Redis server v=5.0.14 sha=0'");

        assertThat(RedisBinary.of(fake).supportsTls()).isFalse();
    }

    @Test
    void environmentOverrideWins(@TempDir Path dir) throws IOException {
        Path chosen = script(dir.resolve("my-redis"), "true");

        assertThat(RedisBinary.resolve(chosen.toString(), "/usr/bin", RedisBinaryTest::unreachable).path())
                .isEqualTo(chosen.toAbsolutePath());
    }

    @Test
    void environmentOverrideThatIsNoExecutableFailsClearly() {
        assertThatThrownBy(() -> RedisBinary.resolve("/no/such/redis-server", "/usr/bin", RedisBinaryTest::unreachable))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RedisBinary.ENV_VAR)
                .hasMessageContaining("/no/such/redis-server");
    }

    @Test
    void pathIsSearchedInOrderWithoutFollowingSymbolicLinks(@TempDir Path dir) throws IOException {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path target = script(dir.resolve("redis-check-rdb"), "true");
        Path link = Files.createSymbolicLink(bin.resolve("redis-server"), target);

        RedisBinary found = RedisBinary.resolve(null, empty + ":" + bin, RedisBinaryTest::unreachable);

        assertThat(found.path()).isEqualTo(link);
    }

    @Test
    void fallsBackToTheEmbeddedBinaryWhenNothingElseIsFound(@TempDir Path empty) {
        assertThat(RedisBinary.resolve(null, empty.toString(), RedisBinary::embedded))
                .isSameAs(RedisBinary.embedded());
    }

    @Test
    void noBinaryAtAllSaysHowToFixIt(@TempDir Path empty) {
        assertThatThrownBy(() -> RedisBinary.resolve(null, empty.toString(), () -> RedisBinary.embedded("Linux", "sparc")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No redis-server found")
                .hasMessageContaining("Linux/sparc")
                .hasMessageContaining("install redis-server")
                .hasMessageContaining(RedisBinary.ENV_VAR);
    }

    private static RedisBinary unreachable() {
        throw new AssertionError("the embedded fallback must not be used");
    }

    private static Path script(Path path, String body) throws IOException {
        Files.writeString(path, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
        return path;
    }
}
