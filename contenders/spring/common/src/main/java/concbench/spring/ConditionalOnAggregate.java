package concbench.spring;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

/** Beans of the /user/{id} endpoint: only created when the workload is http-aggregate. */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ConditionalOnProperty(name = "concbench.workload", havingValue = "http-aggregate")
public @interface ConditionalOnAggregate {
}
