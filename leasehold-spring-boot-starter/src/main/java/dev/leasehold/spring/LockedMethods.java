package dev.leasehold.spring;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The {@link Locked} methods of the application, each parsed once: checked for a whole class when
 * its bean is created, looked up by the interceptor on each call.
 */
final class LockedMethods {

    private final UnaryOperator<String> placeholders;
    private final LeaseholdProperties.Locked defaults;
    private final Map<Method, Optional<LockedMethod>> cache = new ConcurrentHashMap<>();

    /**
     * @param placeholders resolves {@code ${...}} in the attributes
     * @param defaults     the values of attributes left empty
     */
    LockedMethods(UnaryOperator<String> placeholders, LeaseholdProperties.Locked defaults) {
        this.placeholders = placeholders;
        this.defaults = defaults;
    }

    /**
     * Parses every {@code @Locked} method of {@code targetClass} (its own, inherited and from its
     * interfaces).
     *
     * @return whether it has any
     * @throws LeaseholdConfigurationException for the first malformed one
     */
    boolean check(Class<?> targetClass) {
        if (!AnnotationUtils.isCandidateClass(targetClass, Locked.class)) {
            return false;
        }
        Map<Method, Locked> annotated = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<Locked>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, Locked.class));
        annotated.keySet().forEach(this::definition);
        return !annotated.isEmpty();
    }

    /**
     * The definition for a call of {@code method} on an instance of {@code targetClass}, if that
     * method is {@code @Locked}.
     *
     * @throws LeaseholdConfigurationException if its annotation is malformed
     */
    Optional<LockedMethod> forCall(Method method, Class<?> targetClass) {
        Method specific = targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass);
        return definition(BridgeMethodResolver.findBridgedMethod(specific));
    }

    private Optional<LockedMethod> definition(Method method) {
        return cache.computeIfAbsent(method, m -> Optional.ofNullable(AnnotatedElementUtils.findMergedAnnotation(m,
                Locked.class)).map(locked -> LockedMethod.of(m, locked, placeholders, defaults)));
    }
}
