/** The start-up floor: the smallest compiled Bun program that prints a version line. */
export {};
process.stdout.write("hello 0.0.0\n");
