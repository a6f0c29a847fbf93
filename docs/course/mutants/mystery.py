# SPDX-License-Identifier: MIT OR Apache-2.0
"""Exercise 5's mutant (docs/course/05-property-tests.md), `mystery`: find its
bug from RapidCheck's shrunk program, not from here. Its edit is base64, so
that a glance at this file does not give the exercise away, and the runner does
not print its program (secret=True): run its binary yourself, as the exercise
says. The answer is in the exercise's solution on the page."""
import base64


def exercise_5(Mutant):
    def hidden(text):
        return base64.b64decode(text).decode()

    return [
        Mutant("mystery", "5, the exercise", "property",
               "(the exercise of chapter 5: find it from the shrunk program before you read this entry)",
               code=hidden("aWYgKGNsb3NlZF8uZ2V0KCkpIHJldHVybiBzdGF0dXM6OmNsb3NlZDsKaWYgKGZ1bGxfLmdldCgpKSByZXR1cm4g"
                           "c3RhdHVzOjpmdWxsOw=="),
               replacement=hidden("aWYgKGZ1bGxfLmdldCgpKSByZXR1cm4gc3RhdHVzOjpmdWxsOyAvLyBNVVRBTlQ6IGZ1bGwgaXMgY2hl"
                                  "Y2tlZCBmaXJzdAppZiAoY2xvc2VkXy5nZXQoKSkgcmV0dXJuIHN0YXR1czo6Y2xvc2VkOw=="),
               secret=True),
    ]
