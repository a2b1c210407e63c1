package concbench.spring.mvc;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.ReadyInfo;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * How GET /user/{id} writes its JSON, system property concbench.json: "record" returns the User record
 * and lets Boot's Jackson converter write it ({@link UserController}, what Spring code
 * typically does), "bytes" writes it to bytes with the same mapper and sends them with their
 * length ({@link UserBytesController}). The default is the Boot generation's
 * ({@link BootWeb#JSON_DEFAULT}): record on Boot 4, whose converter leaves the response
 * uncommitted so Tomcat sets Content-Length; bytes on Boot 3.5, whose converter flushes the
 * stream, which commits the response without a length (Transfer-Encoding: chunked, which the
 * contract rules out). The form in use is in the ready line ("json"); any other value exits 2
 * before Spring starts ({@link #check}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnAggregate
public class UserJson {
    static final String PROPERTY = "concbench.json";
    static final String RECORD = "record";
    static final String BYTES = "bytes";

    static String form() {
        return System.getProperty(PROPERTY, BootWeb.JSON_DEFAULT);
    }

    /** An unknown form exits 2 (called first thing in main). */
    static void check() {
        String form = form();
        if (!form.equals(RECORD) && !form.equals(BYTES)) {
            System.err.println("concbench-spring: -D" + PROPERTY + " must be record or bytes, not '" + form + "'");
            System.exit(2);
        }
    }

    /** JSON already written to bytes, answered with its length (the bytes form, and /waits). */
    static ResponseEntity<byte[]> answer(byte[] body) {
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .contentLength(body.length)
                .body(body);
    }

    @Bean
    ReadyInfo jsonInfo() {
        String form = form();
        return runtime -> runtime.put("json", form);
    }

    /** The record form is configured. */
    static final class AsRecord implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return RECORD.equals(form());
        }
    }

    /** The bytes form is configured. */
    static final class AsBytes implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return BYTES.equals(form());
        }
    }
}
