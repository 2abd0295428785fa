package dev.leasehold.spi;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** A decorator built on {@link ForwardingLockProtocol} reaches the wrapped protocol for every method. */
class ForwardingLockProtocolTest {

    @Test
    void everyMethodOfLockProtocolDefaultOnesIncludedReachesTheDelegateWithItsArguments() throws Exception {
        List<String> reached = new ArrayList<>();
        LockProtocol delegate = (LockProtocol) Proxy.newProxyInstance(LockProtocol.class.getClassLoader(),
                new Class<?>[] {LockProtocol.class}, (proxy, method, args) -> {
                    reached.add(method.getName() + Arrays.toString(args == null ? new Object[0] : args));
                    return neutral(method.getReturnType());
                });
        LockProtocol decorator = new ForwardingLockProtocol(delegate) {
        };

        for (Method method : LockProtocol.class.getMethods()) {
            Object[] args = argumentsFor(method);
            reached.clear();
            method.invoke(decorator, args);
            // An interface default run on the decorator itself would reach the delegate under another name, or not at all.
            assertThat(reached).as(method.toString()).containsExactly(method.getName() + Arrays.toString(args));
        }
    }

    /**
     * A decorator that changes single renewals and not rounds has the watchdog's rounds renewed
     * lease by lease through its override (a round forwarded whole would skip it); one that
     * overrides rounds too keeps its own; one that changes neither forwards rounds whole.
     */
    @Test
    void roundsGoThroughADecoratorsOwnSingleRenewals() {
        List<String> reached = new ArrayList<>();
        LockProtocol delegate = (LockProtocol) Proxy.newProxyInstance(LockProtocol.class.getClassLoader(),
                new Class<?>[] {LockProtocol.class}, (proxy, method, args) -> {
                    reached.add("delegate." + method.getName());
                    return method.getReturnType() == CompletableFuture.class
                            ? CompletableFuture.completedFuture(true) : neutral(method.getReturnType());
                });
        LockProtocol single = new ForwardingLockProtocol(delegate) {
            @Override
            public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
                reached.add("decorator.renew " + name);
                return delegate().renew(name, holder, ttl);
            }
        };
        LockProtocol both = new ForwardingLockProtocol(delegate) {
            @Override
            public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
                reached.add("decorator.renew " + name);
                return delegate().renew(name, holder, ttl);
            }

            @Override
            public void renew(RenewalRound round) {
                reached.add("decorator.round");
                delegate().renew(round);
            }
        };
        LockProtocol neither = new ForwardingLockProtocol(delegate) {
        };

        Round round = new Round(List.of("a", "b"));
        single.renew(round);
        assertThat(reached).containsExactly("decorator.renew a", "delegate.renew", "decorator.renew b",
                "delegate.renew", "delegate.flushRenewals");
        assertThat(round.answers).containsExactly(true, true);

        reached.clear();
        both.renew(new Round(List.of("a", "b")));
        assertThat(reached).containsExactly("decorator.round", "delegate.renew");

        reached.clear();
        neither.renew(new Round(List.of("a", "b")));
        assertThat(reached).containsExactly("delegate.renew");
    }

    /** A round of watchdog ticks over {@code names}, recording each lease's answer. */
    private static final class Round implements RenewalRound {

        private final List<String> names;
        private final Boolean[] answers;

        Round(List<String> names) {
            this.names = names;
            this.answers = new Boolean[names.size()];
        }

        @Override
        public int size() {
            return names.size();
        }

        @Override
        public String name(int lease) {
            return names.get(lease);
        }

        @Override
        public String holder(int lease) {
            return "holder-" + lease;
        }

        @Override
        public Duration ttl(int lease) {
            return Duration.ofSeconds(3);
        }

        @Override
        public void answer(int lease, boolean extended) {
            answers[lease] = extended;
        }

        @Override
        public void fail(int lease, Throwable error) {
            answers[lease] = false;
        }
    }

    private static Object[] argumentsFor(Method method) {
        Class<?>[] types = method.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            args[i] = types[i] == String.class ? "arg" + i
                    : types[i] == long.class ? (long) i + 7
                    : types[i] == Duration.class ? Duration.ofSeconds(i + 1)
                    : null;
        }
        return args;
    }

    private static Object neutral(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        return null;
    }
}
