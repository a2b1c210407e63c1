package concbench.spring.webflux;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.User;
import concbench.spring.UserIds;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import concbench.spring.Waits;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import reactor.core.publisher.Mono;

/**
 * http-aggregate, seed 003's pure WebFlux version without its blocking sleeps: base, then
 * Mono.zip(detail, extra), all non-blocking (Mono.delay or WebClient); no thread waits.
 */
@RestController
@ConditionalOnAggregate
public class UserController {
    private final ReactiveDownstream downstream;
    private final Waits waits;

    public UserController(ReactiveDownstream downstream, Waits waits) {
        this.downstream = downstream;
        this.waits = waits;
    }

    /**
     * Only digit ids match the mapping, so /user/abc, /user/-1 or /user/+5 are paths no handler
     * serves (404, as an unknown path); 0 and ids past 2^53 - 1 are answered 404 the same way.
     */
    @GetMapping("/user/{id:" + UserIds.PATTERN + "}")
    public Mono<User> getUser(@PathVariable long id) {
        if (!UserIds.isUserId(id)) return Mono.error(new ResponseStatusException(HttpStatus.NOT_FOUND));
        return downstream.getUserBaseInfo(id)
                .flatMap(userId -> Mono.zip(
                                downstream.getUserDetailInfo(userId),
                                downstream.getUserExtraInfo(userId))
                        .map(t -> User.assemble(userId, t.getT1(), t.getT2())));
    }

    /** The in-process waits made so far ({@link Waits}); one value, so it is sent with its Content-Length. */
    @GetMapping("/waits")
    public Mono<Waits.Report> getWaits() {
        return Mono.fromSupplier(waits::report);
    }

    /** The three data sources as Monos. */
    public interface ReactiveDownstream {
        Mono<Long> getUserBaseInfo(long id);

        Mono<UserDetail> getUserDetailInfo(long userId);

        Mono<UserExtraInfo> getUserExtraInfo(long userId);
    }
}
