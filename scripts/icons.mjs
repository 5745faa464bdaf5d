#!/usr/bin/env node
/**
 * `npm run icons`: the icons Next.js serves from app/, drawn from the one source app/icon.svg (browsers that take SVG
 * use it as it is): app/favicon.ico (16, 32 and 48 px, PNG inside ICO) for /favicon.ico, and app/apple-icon.png
 * (180 px, square and opaque: iOS rounds the corners itself). Run it after changing the SVG; the outputs are committed.
 * sharp is the image library Next.js itself installs.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";

const app = path.join(path.dirname(fileURLToPath(import.meta.url)), "../app");
const svg = fs.readFileSync(path.join(app, "icon.svg"), "utf8");
const png = (source, size) => sharp(Buffer.from(source), { density: 600 }).resize(size, size).png().toBuffer();

/** An ICO file holding PNG images (Windows Vista and every browser since read them). */
function ico(images) {
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, data }, i) => {
    const entry = 6 + 16 * i;
    header.writeUInt8(size % 256, entry); // width (0 means 256)
    header.writeUInt8(size % 256, entry + 1); // height
    header.writeUInt8(0, entry + 2); // no palette
    header.writeUInt8(0, entry + 3); // reserved
    header.writeUInt16LE(1, entry + 4); // colour planes
    header.writeUInt16LE(32, entry + 6); // bits per pixel
    header.writeUInt32LE(data.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += data.length;
  });
  return Buffer.concat([header, ...images.map((i) => i.data)]);
}

const sizes = [16, 32, 48];
const favicon = ico(await Promise.all(sizes.map(async (size) => ({ size, data: await png(svg, size) }))));
fs.writeFileSync(path.join(app, "favicon.ico"), favicon);
// Square corners: the home screen masks the icon with its own shape.
const square = svg.replace(/<rect ([^>]*?)rx="[^"]*"/, "<rect $1");
fs.writeFileSync(
  path.join(app, "apple-icon.png"),
  await sharp(await png(square, 180))
    .flatten()
    .png()
    .toBuffer(),
);
console.log(`app/favicon.ico (${sizes.join(", ")} px, ${favicon.length} bytes), app/apple-icon.png (180 px)`);
