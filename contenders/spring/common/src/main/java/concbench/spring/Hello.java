package concbench.spring;

/** The http-hello body: 199 'x' and a newline, built once at class initialization. */
public final class Hello {
    public static final String BODY = "x".repeat(199) + "\n";

    private Hello() {
    }
}
