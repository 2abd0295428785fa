package dev.leasehold.spring;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.beans.PropertyDescriptor;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * Fails the startup on a {@code leasehold.*} property the starter does not know, naming the
 * closest one it does: a typo such as {@code leasehold.redis.operation-timout} would otherwise be
 * ignored and the default used in silence. Runs before any bean is created, so it is reported even
 * when a bean's own failure (an unreachable server) would come first. The application's own
 * sources are checked (property and YAML files, command-line arguments, test properties);
 * environment variables and JVM system properties are left out, since they are set for the whole
 * host or JVM ({@code LEASEHOLD_REDIS}, the command line tool's variable, reads as
 * {@code leasehold.redis}).
 */
final class UnknownProperties implements BeanFactoryPostProcessor {

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("leasehold");

    private final Environment environment;

    UnknownProperties(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        Set<String> known = known();
        // Relaxed equality: keyPrefix, key-prefix and key_prefix are one name.
        Set<ConfigurationPropertyName> knownNames = new HashSet<>();
        known.forEach(name -> knownNames.add(ConfigurationPropertyName.of(name)));
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource names) || hostWide(source)) {
                continue;
            }
            names.stream().filter(ROOT::isAncestorOf).filter(name -> !knownNames.contains(name)).findFirst()
                    .ifPresent(name -> {
                        throw new LeaseholdConfigurationException(name.toString(), "is not a Leasehold property"
                                + where(source, name) + "; did you mean " + closest(name.toString(), known) + "?", null);
                    });
        }
    }

    /** Where the property was set (" (set in class path resource [application.yml] - 3:5)"), when Spring knows. */
    private static String where(ConfigurationPropertySource source, ConfigurationPropertyName name) {
        ConfigurationProperty property = source.getConfigurationProperty(name);
        return property == null || property.getOrigin() == null ? "" : " (set in " + property.getOrigin() + ")";
    }

    private static boolean hostWide(ConfigurationPropertySource source) {
        return source.getUnderlyingSource() instanceof PropertySource<?> underlying
                && (underlying instanceof SystemEnvironmentPropertySource
                || StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(underlying.getName()));
    }

    /** Every leaf property of {@link LeaseholdProperties}, in canonical form ({@code leasehold.redis.key-prefix}). */
    static Set<String> known() {
        Set<String> names = new TreeSet<>();
        collect("leasehold", LeaseholdProperties.class, names);
        return names;
    }

    private static void collect(String prefix, Class<?> type, Set<String> names) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() == null || property.getName().equals("class")) {
                continue;
            }
            String name = prefix + "." + kebab(property.getName());
            if (property.getPropertyType().getDeclaringClass() == LeaseholdProperties.class) {
                collect(name, property.getPropertyType(), names);
            } else {
                names.add(name);
            }
        }
    }

    /** {@code operationTimeout} as Spring's canonical form writes it: {@code operation-timeout}. */
    private static String kebab(String camel) {
        StringBuilder kebab = new StringBuilder();
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                kebab.append('-').append(Character.toLowerCase(c));
            } else {
                kebab.append(c);
            }
        }
        return kebab.toString();
    }

    private static String closest(String name, Set<String> known) {
        return known.stream().min(Comparator.comparingInt(candidate -> distance(name, candidate))).orElseThrow();
    }

    /** Levenshtein distance: the fewest single-character edits from {@code a} to {@code b}. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
