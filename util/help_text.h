/* --help text wrapped to 80 columns (util/help_text.c): ridge's commands
 * and ridge-probe print their usage through it. */
#ifndef RIDGE_UTIL_HELP_TEXT_H
#define RIDGE_UTIL_HELP_TEXT_H

#include <stdio.h>

/* Prints text with every line over 80 columns (RIDGE_HELP_WIDTH: fewer, 40
 * to 80) wrapped at spaces, its continuation under the option's
 * description, the usage line's first option, or the line's first word;
 * the lines that continued a long line are joined to it first, so the
 * paragraph is wrapped as a whole. A line that fits is printed as is. */
void help_text_print(const char *text, FILE *out);

#endif
