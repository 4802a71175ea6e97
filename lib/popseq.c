/* The sequences of a population's logical clients; see popseq.h. */
#include "popseq.h"

#include <math.h>
#include <stddef.h>

double pop_phase(uint32_t j)
{
	/* (sqrt(5) - 1) / 2 */
	double x = (double)j * 0.6180339887498949;

	return x - floor(x);
}

double pop_hold_phase(uint32_t j)
{
	double x = (double)j * 0.41421356237309503;

	return x - floor(x);
}

int pop_sticky(uint32_t j, double q)
{
	return floor((double)(j + 1) * q + 1e-9) > floor((double)j * q + 1e-9);
}

double pop_resolver_point(uint32_t j)
{
	double x = (double)j * 0.7320508075688772;

	return x - floor(x);
}

int pop_resolver_of(const double *w, int n, uint32_t j)
{
	double sum = 0, acc = 0, x = pop_resolver_point(j);

	if (w == NULL)
		return (int)(j % (uint32_t)n);
	for (int k = 0; k < n; k++)
		sum += w[k];
	for (int k = 0; k < n - 1; k++) {
		acc += w[k] / sum;
		if (x < acc)
			return k;
	}
	return n - 1;
}
