import java.io.*;
import java.util.*;

public class Dist {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder out = new StringBuilder();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            StringTokenizer t = new StringTokenizer(line);
            if (!t.hasMoreTokens()) continue;
            long a = Long.parseLong(t.nextToken()), b = Long.parseLong(t.nextToken());
            out.append(Math.abs(a - b)).append('\n');
        }
        System.out.print(out);
    }
}
