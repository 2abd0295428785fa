package dev.leasehold.spring;

import dev.leasehold.LockClient;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.interceptor.AsyncExecutionInterceptor;
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
 * transaction's), so the lock is held around the whole call; except for {@code @Async}'s advice,
 * which stays outside it whichever post-processor ran first, so the lock is taken on the
 * executor's thread, around the method's body.
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
        Object proxied = super.postProcessAfterInitialization(bean, beanName);
        if (proxied instanceof Advised advised) {
            holdTheLockInsideAsync(advised);
        }
        return proxied;
    }

    /**
     * Moves the lock's advisor just inside the last {@code @Async} advisor, if that one was added
     * first (it inserts itself before existing advisors, as this class does, so the later of the two
     * would be outermost). Outside {@code @Async} the lock would be taken and released on the caller's
     * thread while the body runs later on the executor, without the lock and without
     * {@link dev.leasehold.Lease#current()}.
     */
    private void holdTheLockInsideAsync(Advised advised) {
        Advisor[] advisors = advised.getAdvisors();
        int lock = -1;
        int async = -1;
        for (int i = 0; i < advisors.length; i++) {
            if (advisors[i] == this.advisor) {
                lock = i;
            } else if (advisors[i].getAdvice() instanceof AsyncExecutionInterceptor) {
                async = i;
            }
        }
        if (lock >= 0 && async > lock && !advised.isFrozen()) {
            advised.removeAdvisor(lock);
            // After the removal the async advisor sits at async - 1: inserting at async puts the lock right inside it.
            advised.addAdvisor(async, this.advisor);
        }
    }
}
