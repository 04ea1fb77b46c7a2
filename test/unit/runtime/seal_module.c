/* seal_module.c - appends the dlc seal (dlc_abi.h) to a hand-built test
 * library, as `dlc compile` does to the libraries it links. */
#include "dlc_abi.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: seal_module LIBRARY\n");
    return 1;
  }
  FILE *f = fopen(argv[1], "r+b");
  if (!f || fseek(f, 0, SEEK_END) != 0) {
    fprintf(stderr, "seal_module: cannot open '%s'\n", argv[1]);
    return 1;
  }
  long size = ftell(f);
  unsigned char *body = malloc(size > 0 ? (size_t)size : 1);
  rewind(f);
  if (size <= 0 || !body || fread(body, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "seal_module: cannot read '%s'\n", argv[1]);
    return 1;
  }
  dlc_abi_seal_t seal = dlc_abi_seal_for(body, (uint64_t)size);
  if (fseek(f, 0, SEEK_END) != 0 || fwrite(&seal, sizeof(seal), 1, f) != 1 ||
      fclose(f) != 0) {
    fprintf(stderr, "seal_module: cannot write '%s'\n", argv[1]);
    return 1;
  }
  free(body);
  return 0;
}
