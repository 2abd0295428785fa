package dev.leasehold.testkit.junit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A stand-in server: started once for this class and its nested class, before the class's own {@code @BeforeAll}. */
class TestServerTest {

    private static final AtomicInteger STARTS = new AtomicInteger();
    private static final AtomicInteger CLOSES = new AtomicInteger();

    @RegisterExtension
    static final TestServer<AutoCloseable> server = TestServer.perClass(() -> {
        STARTS.incrementAndGet();
        return CLOSES::incrementAndGet;
    });

    private static boolean startedBeforeTheClassesBeforeAll;

    @BeforeAll
    static void seeTheServer() {
        startedBeforeTheClassesBeforeAll = STARTS.get() == 1 && server.get() != null;
    }

    @AfterAll
    static void stillRunningUntilTheClassIsDone() {
        assertThat(CLOSES.get()).as("closed only after the class").isZero();
    }

    @Test
    void theServerRunsBeforeTheClassesBeforeAllAndOnlyOnce() {
        assertThat(startedBeforeTheClassesBeforeAll).isTrue();
        assertThat(STARTS.get()).isEqualTo(1);
    }

    @Nested
    class Inner {
        @Test
        void aNestedClassSharesTheOuterClassesServer() {
            assertThat(STARTS.get()).isEqualTo(1);
            assertThat(server.get()).isNotNull();
        }
    }

    @Test
    void anUnstartedServerOrABlankKeyIsRefusedWithWhatToDo() {
        TestServer<AutoCloseable> unregistered = TestServer.perClass(() -> () -> { });
        assertThatThrownBy(unregistered::get).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@RegisterExtension");
        assertThatThrownBy(() -> TestServer.perJvm(" ", () -> () -> { })).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
    }
}
