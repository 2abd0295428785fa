package dev.leasehold.spi;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
