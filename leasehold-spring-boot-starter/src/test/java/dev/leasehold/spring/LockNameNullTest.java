package dev.leasehold.spring;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A null joined into a {@link Locked#name()} with {@code +} is refused however the expression reaches
 * it (a property of an argument, {@code #root.args}, safe navigation), and only when it was joined:
 * a name that merely contains "null" from a non-null argument is a name like any other.
 */
class LockNameNullTest {

    record Order(Long id) {
    }

    @SuppressWarnings("unused")
    static final class Service {
        void byOrder(Order order) {
        }

        void byTenant(String tenant, Long id) {
        }

        void byId(Long id) {
        }
    }

    @Test
    void aNullPropertyJoinedIntoTheNameIsRefused() {
        for (String text : new String[] {"'order:' + #order.id", "'order:' + #p0.id", "'order:' + #root.args[0].id",
                "'order:' + #order?.id"}) {
            assertThatThrownBy(() -> evaluate("byOrder", text, new Order(null))).as(text)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("order:null");
        }
        assertThat(evaluate("byOrder", "'order:' + #order.id", new Order(7L))).isEqualTo("order:7");
    }

    @Test
    void aNullArgumentJoinedThroughRootArgsIsRefused() {
        assertThatThrownBy(() -> evaluate("byId", "'order:' + #root.args[0]", (Object) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("order:null");
    }

    /**
     * A method of the expression that throws on the null (SpEL rethrows its exception as it is) is the
     * expression failing: an IllegalArgumentException naming the method and the expression.
     */
    @Test
    void aMethodThatThrowsOnTheNullIsTheExpressionFailing() {
        assertThatThrownBy(() -> evaluate("byId", "'order:'.concat(#id)", (Object) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Service.byId(Long)")
                .hasMessageContaining("'order:'.concat(#id)").hasCauseInstanceOf(NullPointerException.class);
    }

    /** The ternary keeps the null id out of the name; "null" comes from the tenant's own name. */
    @Test
    void aNameContainingNullFromANonNullArgumentIsAccepted() {
        assertThat(evaluate("byTenant", "'tenant:' + #tenant + (#id == null ? '' : ':' + #id)", "annulled", null))
                .isEqualTo("tenant:annulled");
    }

    private static String evaluate(String methodName, String text, Object... args) {
        Method method = null;
        for (Method candidate : Service.class.getDeclaredMethods()) {
            if (candidate.getName().equals(methodName)) {
                method = candidate;
            }
        }
        return LockNameExpression.parse(method, text, "test").evaluate(new Service(), args, null);
    }
}
