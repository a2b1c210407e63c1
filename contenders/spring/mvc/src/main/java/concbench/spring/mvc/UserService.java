package concbench.spring.mvc;

import concbench.spring.User;

/** One implementation per design (Spring profile). */
public interface UserService {
    User assembleUser(long id) throws Exception;
}
