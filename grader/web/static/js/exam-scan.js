// Opening a sheet by its QR code: the device's camera and the browser's BarcodeDetector, where
// the browser has it; typing the code always works.

const button = document.querySelector("[data-role=scan]");
const video = document.querySelector("[data-role=camera]");
const input = document.getElementById("code");

async function scan() {
  const detector = new window.BarcodeDetector({ formats: ["qr_code"] });
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
  video.srcObject = stream;
  video.hidden = false;
  await video.play();
  try {
    for (;;) {
      const codes = await detector.detect(video);
      if (codes.length) {
        input.value = codes[0].rawValue;
        input.form.requestSubmit();
        return;
      }
      await new Promise((resolve) => { setTimeout(resolve, 200); });
    }
  } finally {
    for (const track of stream.getTracks()) track.stop();
  }
}

if (button && "BarcodeDetector" in window && navigator.mediaDevices?.getUserMedia) {
  button.hidden = false;
  button.addEventListener("click", () => {
    scan().catch((error) => {
      document.querySelector("[data-role=scan-status]").textContent =
        `The camera could not be used (${error.message}): type the code.`;
    });
  });
}
