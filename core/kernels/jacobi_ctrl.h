/* Layout of the Jacobi control block: 8 unsigned 64-bit words in device memory, shared by every
   backend so the host reads it the same way. The convergence decision is made on the device by
   the iteration after a check, so a batch of launches needs no host round trip per iteration.

   word 0: converged flag (0 or 1)
   word 1: number of iterations done when the flag was set
   words 2..4: ring of three slots; check c accumulates max(metric) into slot c % 3 as the bits
               of a non-negative float (low 32 bits) or double, and clears slot (c + 1) % 3 for the
               next check. Non-negative IEEE numbers order like their bit patterns, so an unsigned
               atomic max is a float max, and NaN (larger than any finite bit pattern) never passes. */
#ifndef PF_JACOBI_CTRL_H
#define PF_JACOBI_CTRL_H

#define PF_JCTRL_CONVERGED 0
#define PF_JCTRL_ITERATIONS 1
#define PF_JCTRL_SLOT0 2
#define PF_JCTRL_NSLOTS 3
#define PF_JCTRL_WORDS 8

#endif
