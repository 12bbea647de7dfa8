/* gpusizer: the one palette of the memory components, W weights, G
 * gradients, O optimizer states, A activations, B other (Tableau 10
 * colours, distinct in print and for the common colour-vision
 * deficiencies), shared by the SVG charts and the workbook's charts:
 * 0xRRGGBB, in W, G, O, A, B order. */
#ifndef GS_PALETTE_H
#define GS_PALETTE_H

#define GS_PALETTE_PARTS 5
#define GS_PALETTE_W 0x4E79A7 /* blue */
#define GS_PALETTE_G 0xF28E2B /* orange */
#define GS_PALETTE_O 0xE15759 /* red */
#define GS_PALETTE_A 0x76B7B2 /* teal */
#define GS_PALETTE_B 0x59A14F /* green */

#endif
