package concbench.spring.mvc;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.DownstreamException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.client.RestClientException;

/**
 * A downstream call that failed (refused, reset, timeout, a status other than 200): 502, logged
 * at WARN on stderr (an error path only: successful requests are never logged).
 */
@RestControllerAdvice
@ConditionalOnAggregate
public class BadGatewayAdvice {

    private static final Logger log = LoggerFactory.getLogger(BadGatewayAdvice.class);

    @ExceptionHandler({RestClientException.class, DownstreamException.class})
    @ResponseStatus(HttpStatus.BAD_GATEWAY)
    public void badGateway(RuntimeException e) {
        log.warn("downstream call failed: {}", e.toString());
    }
}
