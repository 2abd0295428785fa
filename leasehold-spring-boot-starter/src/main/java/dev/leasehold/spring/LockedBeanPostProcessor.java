package dev.leasehold.spring;

import dev.leasehold.LockClient;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.util.function.SingletonSupplier;

/**
 * Proxies the beans that have {@link Locked} methods, and checks every such method when its bean
 * is created, so a malformed attribute fails the startup rather than the first call. The lock is
 * the outermost advice of the bean (added before any advisor already there, such as a
 * transaction's), so the lock is held around the whole call.
 */
public class LockedBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    private final transient LeaseholdProperties.Locked defaults;
    private transient LockedMethods methods;

    /** @param defaults the values of {@code @Locked} attributes left empty ({@code leasehold.locked.*}) */
    public LockedBeanPostProcessor(LeaseholdProperties.Locked defaults) {
        this.defaults = defaults;
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        ConfigurableBeanFactory configurable = (ConfigurableBeanFactory) beanFactory;
        this.methods = new LockedMethods(text -> text == null ? null : configurable.resolveEmbeddedValue(text), defaults);
        LockedInterceptor interceptor = new LockedInterceptor(methods,
                SingletonSupplier.of(() -> beanFactory.getBean(LockClient.class)), beanFactory);
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Locked.class, true), interceptor);
    }

    /**
     * Checks the bean's {@code @Locked} methods, then proxies it if it has any.
     *
     * @throws LeaseholdConfigurationException for a malformed {@code @Locked} attribute; Spring
     *         reports it as the failure to create the bean
     */
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof AopInfrastructureBean)) {
            methods.check(AopUtils.getTargetClass(bean));
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }
}
