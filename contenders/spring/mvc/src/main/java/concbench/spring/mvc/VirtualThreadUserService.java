package concbench.spring.mvc;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.User;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Service;

/**
 * Seed 003's virtual-thread version (assembleUserVirtualThread): base on the request thread
 * (itself virtual: spring.threads.virtual.enabled=true), then detail and extra as
 * CompletableFuture.supplyAsync on a per-request Executors.newVirtualThreadPerTaskExecutor(),
 * closed by try-with-resources (close() returns at once: both tasks are done after get()).
 */
@Service
@Profile("virtual")
@ConditionalOnAggregate
public class VirtualThreadUserService implements UserService {
    private final Downstream downstream;

    public VirtualThreadUserService(Downstream downstream) {
        this.downstream = downstream;
    }

    @Override
    public User assembleUser(long id) throws Exception {
        long userId = downstream.getUserBaseInfo(id);
        try (ExecutorService virtualExecutor = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<UserDetail> detailFuture = CompletableFuture.supplyAsync(
                    () -> downstream.getUserDetailInfo(userId), virtualExecutor);
            CompletableFuture<UserExtraInfo> extraFuture = CompletableFuture.supplyAsync(
                    () -> downstream.getUserExtraInfo(userId), virtualExecutor);
            return User.assemble(userId, Futures.get(detailFuture), Futures.get(extraFuture));
        }
    }
}
