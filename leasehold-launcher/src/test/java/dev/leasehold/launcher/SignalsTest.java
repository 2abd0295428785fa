package dev.leasehold.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SignalsTest {

    Process sleeper;

    @BeforeEach
    void startSleeper() throws IOException {
        sleeper = new ProcessBuilder("sleep", "30").start();
    }

    @AfterEach
    void killSleeper() {
        sleeper.destroyForcibly();
    }

    @Test
    void stopReturnsOnceTheProcessIsStoppedAndContResumesIt() throws IOException {
        Signals.stop(sleeper.pid());
        assertThat(state(sleeper.pid())).isEqualTo('T');

        Signals.cont(sleeper.pid());
        assertThat(state(sleeper.pid())).isNotEqualTo('T');
    }

    @Test
    void termEndsTheProcessWithSigterm() throws InterruptedException {
        Signals.term(sleeper.pid());

        assertThat(sleeper.waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(sleeper.exitValue()).isEqualTo(128 + 15);
    }

    @Test
    void killEndsEvenAStoppedProcess() throws InterruptedException {
        Signals.stop(sleeper.pid());
        Signals.kill(sleeper.pid());

        assertThat(sleeper.waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(sleeper.exitValue()).isEqualTo(128 + 9);
    }

    @Test
    void signallingAnEndedProcessFails() throws InterruptedException {
        sleeper.destroyForcibly().waitFor();

        assertThatThrownBy(() -> Signals.cont(sleeper.pid()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("kill -CONT " + sleeper.pid());
    }

    private static char state(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }
}
