package dev.leasehold.spring;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.ExpressionState;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Elvis;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.Ternary;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The SpEL expression of {@link Locked#name()} for one method: parsed and checked once, evaluated
 * per call with the call's arguments as variables.
 */
final class LockNameExpression {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final Method method;
    private final String text;
    private final SpelExpression expression;

    private LockNameExpression(Method method, String text, SpelExpression expression) {
        this.method = method;
        this.text = text;
        this.expression = expression;
    }

    /** The root object of the evaluation: {@code #root.method}, {@code #root.target}, {@code #root.args}. */
    public record Root(Method method, Object target, Object[] args) {
    }

    /**
     * Parses {@code text} and checks that every variable it reads is one of the method's parameters
     * (by name, or as {@code p0}/{@code a0}) or {@code #root}/{@code #this}.
     *
     * @param where the method and attribute, for messages
     * @throws LeaseholdConfigurationException if the text is blank, not SpEL, or reads another variable
     */
    static LockNameExpression parse(Method method, String text, String where) {
        if (text == null || text.isBlank()) {
            throw new LeaseholdConfigurationException(where, "the lock name must not be empty; write a SpEL "
                    + "expression such as \"'order:' + #id\" (a constant name is a literal: \"'nightly-report'\")", null);
        }
        SpelExpression expression;
        try {
            expression = (SpelExpression) PARSER.parseExpression(text);
        } catch (ParseException e) {
            throw new LeaseholdConfigurationException(where, "\"" + text + "\" is not a valid SpEL expression: "
                    + e.getMessage(), e);
        }
        Set<String> known = variables(method);
        Set<String> read = new TreeSet<>();
        collectVariables(expression.getAST(), read);
        read.removeAll(known);
        if (!read.isEmpty()) {
            String[] names = PARAMETER_NAMES.getParameterNames(method);
            throw new LeaseholdConfigurationException(where, "\"" + text + "\" reads #" + String.join(", #", read)
                    + ", which the method does not have; its variables are " + known
                    + (names == null ? " (its parameter names are not in the class file: compile with -parameters, "
                    + "as Spring Boot's build plugins do, or write #p0, #p1, ...)" : ""), null);
        }
        return new LockNameExpression(method, text, expression);
    }

    /**
     * The lock name for one call.
     *
     * @throws IllegalArgumentException if the expression fails or yields null or a blank name, or
     *         joins a null value into the name with {@code +} (SpEL would write "null", and every
     *         such call would share one lock); the message names the method and the expression
     */
    String evaluate(Object target, Object[] args, BeanFactory beanFactory) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(new Root(method, target, args), method,
                args, PARAMETER_NAMES);
        if (beanFactory != null) {
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        }
        String name;
        SpelNode joinedNull;
        try {
            name = expression.getValue(context, String.class);
            // SpEL writes a null joined with + as "null"; only then is it worth finding the operand.
            joinedNull = name == null || !name.contains("null") ? null
                    : nullJoined(expression.getAST(), new ExpressionState(context), false);
        } catch (RuntimeException e) {
            // Not only EvaluationException: SpEL rethrows what a called method threw as it is.
            throw new IllegalArgumentException("@Locked(name = \"" + text + "\") on " + describe(method)
                    + " could not be evaluated: " + e.getMessage(), e);
        }
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("@Locked(name = \"" + text + "\") on " + describe(method) + " gave "
                    + (name == null ? "null" : "a blank name") + " for this call; the method did not run");
        }
        if (joinedNull != null) {
            String operand = joinedNull.toStringAST();
            throw new IllegalArgumentException("@Locked(name = \"" + text + "\") on " + describe(method)
                    + ": " + operand + " is null for this call, so the name would be '" + name
                    + "', shared by every such call; the method did not run (to lock such calls on purpose, "
                    + "name the case: (" + operand + " ?: 'none'))");
        }
        return name;
    }

    /**
     * The first operand that a {@code +} evaluated on this call joins as null, or null if none: follows
     * the branch each {@code ?:} and {@code ? :} took, so a null kept out of the name by a condition
     * is not one. Operands are evaluated again, as the whole expression just was.
     */
    private static SpelNode nullJoined(SpelNode node, ExpressionState state, boolean joined) {
        if (node instanceof OpPlus && node.getChildCount() == 2) {
            for (int i = 0; i < 2; i++) {
                SpelNode found = nullJoined(node.getChild(i), state, true);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
        if (node instanceof Ternary) {
            Object condition = state.convertValue(node.getChild(0).getValue(state), TypeDescriptor.valueOf(Boolean.class));
            return nullJoined(node.getChild(Boolean.TRUE.equals(condition) ? 1 : 2), state, joined);
        }
        if (node instanceof Elvis) {
            Object value = node.getChild(0).getValue(state);
            boolean missing = value == null || "".equals(value) || (value instanceof Optional<?> optional && optional.isEmpty());
            return nullJoined(node.getChild(missing ? 1 : 0), state, joined);
        }
        return joined && node.getValue(state) == null ? node : null;
    }

    /** {@code Type.method(ParamType, ...)}, for messages. */
    static String describe(Method method) {
        StringBuilder text = new StringBuilder(method.getDeclaringClass().getSimpleName()).append('.')
                .append(method.getName()).append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            text.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
        }
        return text.append(')').toString();
    }

    private static Set<String> variables(Method method) {
        Set<String> known = new TreeSet<>(Set.of("root", "this"));
        for (int i = 0; i < method.getParameterCount(); i++) {
            known.add("p" + i);
            known.add("a" + i);
        }
        String[] names = PARAMETER_NAMES.getParameterNames(method);
        if (names != null) {
            known.addAll(Set.of(names));
        }
        return known;
    }

    private static void collectVariables(SpelNode node, Set<String> into) {
        if (node instanceof VariableReference) {
            into.add(node.toStringAST().substring(1));
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), into);
        }
    }
}
